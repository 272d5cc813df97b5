#include "reports/json_report.hpp"

#include <fstream>
#include <stdexcept>

namespace mcpping {

using nlohmann::json;

json to_json(const CheckResult& check) {
  json refs = json::array();
  for (const auto& ref : check.spec) {
    refs.push_back(
        {{"key", ref.key}, {"url", ref.url}, {"revision", ref.revision}, {"text", ref.text}});
  }
  json out = {
      {"id", check.id}, {"level", to_string(check.level)}, {"verdict", to_string(check.verdict)},
      {"spec", refs},   {"expected", check.expected},      {"actual", check.actual}};
  if (!check.latency_ms.empty()) out["latency_ms"] = check.latency_ms;
  if (check.at_ms) out["at_ms"] = *check.at_ms;
  return out;
}

json to_json(const CaseResult& result) {
  json checks = json::array();
  for (const auto& check : result.checks) checks.push_back(to_json(check));
  json out = {{"case", result.case_id},
              {"transport", result.transport},
              {"title", result.title},
              {"verdict", to_string(result.verdict)},
              {"duration_ms", result.duration_ms},
              {"checks", checks},
              {"evidence_dir", result.evidence_dir.string()}};
  if (!result.reason.empty()) out["reason"] = result.reason;
  return out;
}

void write_case_verdict(const CaseResult& result) {
  if (result.evidence_dir.empty()) return;
  std::ofstream file(result.evidence_dir / "verdict.json");
  // Replace broken UTF-8 a client may have sent rather than throwing on dump().
  file << to_json(result).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  if (!file) {
    throw std::runtime_error("cannot write " + (result.evidence_dir / "verdict.json").string());
  }
}

}  // namespace mcpping
