#include "reports/evidence.hpp"

#include <sstream>

#include "core/text.hpp"

namespace mcpping {

std::string check_headline(const CheckResult& check) {
  std::string headline = "[" + std::string(to_string(check.level)) + "] " + check.id;
  if (check.collateral) headline += " (collateral)";
  if (!check.actual.empty()) headline += " \u2014 " + shorten(check.actual, 160);
  return headline;
}

std::string evidence_text(const CaseResult& result) {
  std::ostringstream out;
  if (!result.reason.empty())
    out << "  " << to_string(result.verdict) << ": " << result.reason << "\n";
  for (const CheckResult* check : notable_checks(result)) {
    out << "  check " << check->id << " [" << to_string(check->level) << "] "
        << to_string(check->verdict)
        << (check->collateral ? " (collateral: not this case's subject)" : "") << "\n";
    for (const auto& ref : check->spec) {
      out << "    spec: \"" << ref.text << "\"\n          " << ref.url << "\n";
    }
    out << "    Expected: " << (check->expected.empty() ? "-" : shorten(check->expected, 2048))
        << "\n    Actual:   " << (check->actual.empty() ? "-" : shorten(check->actual, 2048))
        << "\n";
  }
  if (!result.transcript_excerpt.empty()) {
    out << "  transcript:\n";
    for (const auto& line : result.transcript_excerpt) out << "    " << shorten(line, 400) << "\n";
  }
  if (!result.evidence_dir.empty()) out << "  evidence: " << result.evidence_dir.string() << "\n";
  return out.str();
}

}  // namespace mcpping
