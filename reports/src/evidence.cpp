#include "reports/evidence.hpp"

#include <sstream>

namespace mcpping {

std::string shorten(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  constexpr std::string_view kMarker = " [...]";
  std::size_t keep = max > kMarker.size() ? max - kMarker.size() : 0;
  // Do not cut a UTF-8 sequence in half.
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
  return text.substr(0, keep) + std::string(kMarker);
}

std::string check_headline(const CheckResult& check) {
  std::string headline = "[" + std::string(to_string(check.level)) + "] " + check.id;
  if (!check.actual.empty()) headline += " \u2014 " + shorten(check.actual, 160);
  return headline;
}

std::string evidence_text(const CaseResult& result) {
  std::ostringstream out;
  if (!result.reason.empty())
    out << "  " << to_string(result.verdict) << ": " << result.reason << "\n";
  for (const CheckResult* check : notable_checks(result)) {
    out << "  check " << check->id << " [" << to_string(check->level) << "] "
        << to_string(check->verdict) << "\n";
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
