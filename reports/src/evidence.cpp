#include "reports/evidence.hpp"

#include <sstream>

#include "core/text.hpp"

namespace mcpping {

std::string check_headline(const CheckResult& check) {
  std::string headline = "[" + std::string(to_string(check.level)) + "] " + check.id;
  if (check.kind == CheckKind::Collateral) headline += " (finding of the run)";
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
        << (check->kind == CheckKind::Collateral
                ? " (a finding of the run, not this case's subject: no part of its verdict)"
                : "")
        << "\n";
    for (const auto& ref : check->spec) {
      out << "    spec: \"" << ref.text << "\"\n          " << ref.url << "\n";
    }
    out << "    Expected: " << (check->expected.empty() ? "-" : shorten(check->expected, 2048))
        << "\n    Actual:   " << (check->actual.empty() ? "-" : shorten(check->actual, 2048))
        << "\n";
  }
  for (const auto& check : result.not_judged) out << "  " << not_judged_line(check) << "\n";
  if (!result.transcript_excerpt.empty()) {
    out << "  transcript:\n";
    for (const auto& line : result.transcript_excerpt) out << "    " << shorten(line, 400) << "\n";
  }
  if (!result.evidence_dir.empty()) out << "  evidence: " << result.evidence_dir.string() << "\n";
  return out.str();
}

std::string not_judged_line(const NotJudgedCheck& check) {
  return "[" + std::string(to_string(check.level)) + "] " + check.id +
         " \u2014 not judged: " + shorten(check.why, 300);
}

std::string finding_line(const Finding& finding) {
  const auto n = finding.cases.size();
  return std::string(to_string(finding.verdict)) + " [" + std::string(to_string(finding.level)) +
         "] " + finding.check + " (" + finding.transport + "), " + std::to_string(n) +
         (n == 1 ? " case" : " cases") + " \u2014 " + shorten(finding.example, 200);
}

std::string root_cause_line(const RootCause& cause) {
  return std::to_string(cause.cases.size()) + " cases (" + cause.transport + "): " + cause.check +
         (cause.finding ? " (finding) " : " ") + std::string(to_string(cause.verdict)) +
         " \u2014 " + shorten(cause.evidence, 200);
}

}  // namespace mcpping
