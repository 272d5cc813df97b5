#include "reports/json_report.hpp"

#include <algorithm>
#include <array>
#include <fstream>

#include "core/files.hpp"
#include "core/latency.hpp"

namespace mcpping {

using nlohmann::json;

namespace {

json refs_json(const std::vector<SpecReference>& spec) {
  json refs = json::array();
  for (const auto& ref : spec) {
    refs.push_back({{"key", ref.key},
                    {"url", ref.url},
                    {"revision", ref.revision},
                    {"text", ref.text},
                    {"binds", to_string(ref.binds)}});
  }
  return refs;
}

std::vector<SpecReference> refs_from_json(const json& refs) {
  std::vector<SpecReference> out;
  for (const auto& ref : refs) {
    out.push_back({ref.value("key", ""), ref.value("url", ""), ref.value("revision", ""),
                   ref.value("text", ""),
                   binds_from_string(ref.value("binds", "")).value_or(Binds::Definition)});
  }
  return out;
}

// In the order of the enumerators.
constexpr std::array<std::string_view, 4> kExpectationNames = {"none", "expected-failure", "flaky",
                                                               "stale"};

Expectation parse_expectation(const std::string& text) {
  const auto it = std::find(kExpectationNames.begin(), kExpectationNames.end(), text);
  return it == kExpectationNames.end() ? Expectation::kNone
                                       : static_cast<Expectation>(it - kExpectationNames.begin());
}

// A "baseline" member's mark, on a case or a finding.
void read_mark(const json& doc, Expectation& expectation, std::string& reason) {
  if (!doc.contains("baseline")) return;
  expectation = parse_expectation(doc["baseline"].value("status", ""));
  reason = doc["baseline"].value("reason", "");
}

Finding finding_from_json(const json& f) {
  Finding finding;
  finding.check = f.value("check", "");
  finding.transport = f.value("transport", "");
  finding.level = parse_level(f.value("level", "MUST")).value_or(Level::Must);
  finding.verdict = parse_verdict(f.value("verdict", "FAIL")).value_or(Verdict::Fail);
  finding.spec = refs_from_json(f.value("spec", json::array()));
  finding.expected = f.value("expected", "");
  finding.cases = f.value("cases", std::vector<std::string>{});
  finding.example = f.value("example", "");
  finding.example_case = f.value("example_case", "");
  read_mark(f, finding.expectation, finding.expectation_reason);
  return finding;
}

void add_single_pongs(const CaseResult& result, std::vector<double>& all) {
  for (const auto& check : result.checks) {
    if (!is_burst(check)) all.insert(all.end(), check.latency_ms.begin(), check.latency_ms.end());
  }
}

json to_json(const CheckResult& check) {
  json out = {{"id", check.id},
              {"level", to_string(check.level)},
              {"verdict", to_string(check.verdict)},
              {"outcome", to_string(check.outcome)},
              {"spec", refs_json(check.spec)},
              {"expected", check.expected},
              {"actual", check.actual}};
  if (check.kind != CheckKind::Subject) out["kind"] = to_string(check.kind);
  if (!check.latency_ms.empty()) out["latency_ms"] = check.latency_ms;
  if (check.burst) out["burst"] = to_json(*check.burst);
  if (check.at_ms) out["at_ms"] = *check.at_ms;
  return out;
}

json to_json(const Finding& finding) {
  json out = {{"check", finding.check},
              {"transport", finding.transport},
              {"level", to_string(finding.level)},
              {"verdict", to_string(finding.verdict)},
              {"spec", refs_json(finding.spec)},
              {"expected", finding.expected},
              {"cases", finding.cases},
              {"example", finding.example},
              {"example_case", finding.example_case}};
  if (finding.expectation != Expectation::kNone) {
    out["baseline"] = {{"status", to_string(finding.expectation)},
                       {"reason", finding.expectation_reason}};
  }
  return out;
}

}  // namespace

std::string_view to_string(Expectation expectation) {
  return kExpectationNames.at(static_cast<std::size_t>(expectation));
}

bool is_burst(const CheckResult& check) {
  return check.burst.has_value() || check.latency_ms.size() > 1;
}

LatencySummary single_pong_figures(const CaseResult& result) {
  std::vector<double> all;
  add_single_pongs(result, all);
  return summarize_latencies(std::move(all));
}

LatencySummary single_pong_figures(const RunResult& run, const std::string& transport) {
  std::vector<double> all;
  for (const auto& result : run.cases) {
    if (transport.empty() || result.transport == transport) add_single_pongs(result, all);
  }
  return summarize_latencies(std::move(all));
}

std::vector<Burst> bursts_of(const RunResult& run, const std::string& transport) {
  std::vector<Burst> out;
  for (const auto& result : run.cases) {
    if (!transport.empty() && result.transport != transport) continue;
    for (const auto& check : result.checks) {
      if (check.burst) out.push_back({&result, &check});
    }
  }
  return out;
}

json to_json(const CaseResult& result) {
  json checks = json::array();
  for (const auto& check : result.checks) checks.push_back(to_json(check));
  json not_judged = json::array();
  for (const auto& check : result.not_judged) {
    not_judged.push_back({{"id", check.id},
                          {"level", to_string(check.level)},
                          {"expected", check.expected},
                          {"why", check.why}});
  }
  json out = {{"case", result.case_id},
              {"transport", result.transport},
              {"title", result.title},
              {"description", result.description},
              {"catches", result.catches},
              {"verdict", to_string(result.verdict)},
              {"duration_ms", result.duration_ms},
              {"checks", checks},
              {"evidence_dir", result.evidence_dir.string()}};
  if (!not_judged.empty()) out["not_judged"] = std::move(not_judged);
  if (!result.reason.empty()) out["reason"] = result.reason;
  if (result.expectation != Expectation::kNone) {
    out["baseline"] = {{"status", to_string(result.expectation)},
                       {"reason", result.expectation_reason}};
  }
  if (const auto figures = single_pong_figures(result); figures.count > 0) {
    out["latency_ms"] = {
        {"count", figures.count}, {"p50", figures.p50}, {"p95", figures.p95}, {"max", figures.max}};
  }
  json bursts = json::array();
  for (const auto& check : result.checks) {
    if (!check.burst) continue;
    bursts.push_back(to_json(*check.burst));
    bursts.back()["check"] = check.short_id;
  }
  if (!bursts.empty()) out["bursts"] = std::move(bursts);
  return out;
}

json to_json(const RunResult& run) {
  const VerdictCounts c = count_verdicts(run.cases);
  json cases = json::array();
  for (const auto& result : run.cases) cases.push_back(to_json(result));
  json findings = json::array();
  for (const auto& finding : run.findings) findings.push_back(to_json(finding));
  json causes = json::array();
  for (const auto& cause : root_causes(run)) {
    causes.push_back({{"check", cause.check},
                      {"transport", cause.transport},
                      {"verdict", to_string(cause.verdict)},
                      {"finding", cause.finding},
                      {"cases", cause.cases},
                      {"evidence", cause.evidence}});
  }
  json out = {{"format", "mcp-ping-conformance-results/1"},
              {"suite", {{"name", "mcp-ping-conformance"}, {"version", run.info.suite_version}}},
              {"run",
               {{"revision", run.info.revision},
                {"strict", run.info.strict},
                {"timeout_multiplier", run.info.timeout_multiplier},
                {"pong_cap_ms", run.info.pong_cap_ms},
                {"jobs_choice", run.info.jobs_choice},
                {"driver", run.info.driver_argv},
                {"schemas", run.info.schemas.empty() ? json() : json(run.info.schemas)},
                {"started_at", run.started_at},
                {"duration_ms", run.duration_ms}}},
              {"counts",
               {{"total", c.total},
                {"pass", c.pass},
                {"fail", c.fail},
                {"non_strict", c.non_strict},
                {"expected_failures", c.expected_failures},
                {"flaky", c.flaky},
                {"stale", c.stale},
                {"unsupported", c.unsupported},
                {"informational", c.informational},
                {"error", c.error}}},
              {"findings", findings},
              {"root_causes", causes},
              {"cases", cases}};
  if (!run.baseline_file.empty()) {
    out["baseline"] = {{"file", run.baseline_file},
                       {"unknown_entries", run.unknown_baseline_entries}};
  }
  return out;
}

void write_results_json(const RunResult& run, const std::filesystem::path& file) {
  write_file_atomically(file,
                        to_json(run).dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

RunResult read_results_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ResultsFileError("cannot read " + file.string());
  const json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() ||
      doc.value("format", "") != "mcp-ping-conformance-results/1") {
    throw ResultsFileError(file.string() + ": not a results.json of mcp-ping-conformance");
  }
  try {
    RunResult run;
    const auto& info = doc.at("run");
    run.info.suite_version = doc.at("suite").value("version", "");
    run.info.revision = info.value("revision", "");
    run.info.strict = info.value("strict", false);
    run.info.timeout_multiplier = info.value("timeout_multiplier", 1.0);
    run.info.pong_cap_ms = info.value("pong_cap_ms", 0.0);
    run.info.jobs_choice = info.value("jobs_choice", "");
    run.info.driver_argv = info.value("driver", std::vector<std::string>{});
    if (info.contains("schemas") && info["schemas"].is_string())
      run.info.schemas = info["schemas"].get<std::string>();
    run.started_at = info.value("started_at", "");
    run.duration_ms = info.value("duration_ms", 0.0);
    for (const auto& c : doc.at("cases")) {
      CaseResult result;
      result.case_id = c.at("case").get<std::string>();
      result.transport = c.at("transport").get<std::string>();
      result.title = c.value("title", "");
      result.description = c.value("description", "");
      result.catches = c.value("catches", "");
      result.verdict = parse_verdict(c.at("verdict").get<std::string>()).value_or(Verdict::Error);
      result.reason = c.value("reason", "");
      result.duration_ms = c.value("duration_ms", 0.0);
      result.evidence_dir = c.value("evidence_dir", "");
      read_mark(c, result.expectation, result.expectation_reason);
      for (const auto& k : c.at("checks")) {
        CheckResult check;
        check.id = k.at("id").get<std::string>();
        check.short_id = check.id.substr(check.id.find(':') + 1);
        check.level = parse_level(k.value("level", "MUST")).value_or(Level::Must);
        check.verdict = parse_verdict(k.value("verdict", "FAIL")).value_or(Verdict::Fail);
        check.expected = k.value("expected", "");
        check.actual = k.value("actual", "");
        check.outcome = parse_outcome(k.value("outcome", "")).value_or(Outcome::Broken);
        check.kind = parse_check_kind(k.value("kind", "subject")).value_or(CheckKind::Subject);
        check.latency_ms = k.value("latency_ms", std::vector<double>{});
        if (k.contains("burst")) check.burst = burst_from_json(k["burst"]);
        if (k.contains("at_ms")) check.at_ms = k["at_ms"].get<double>();
        check.spec = refs_from_json(k.value("spec", json::array()));
        result.checks.push_back(std::move(check));
      }
      for (const auto& k : c.value("not_judged", json::array())) {
        NotJudgedCheck check;
        check.id = k.at("id").get<std::string>();
        check.short_id = check.id.substr(check.id.find(':') + 1);
        check.level = parse_level(k.value("level", "MUST")).value_or(Level::Must);
        check.expected = k.value("expected", "");
        check.why = k.value("why", "");
        result.not_judged.push_back(std::move(check));
      }
      run.cases.push_back(std::move(result));
    }
    std::vector<Finding> marked;
    for (const auto& f : doc.value("findings", json::array()))
      marked.push_back(finding_from_json(f));
    run.findings = collect_findings(run.cases, marked, run.info.strict);
    return run;
  } catch (const json::exception& e) {
    throw ResultsFileError(file.string() + ": " + e.what());
  }
}

}  // namespace mcpping
