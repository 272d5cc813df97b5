#include "reports/junit.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>

#include "core/files.hpp"
#include "core/text.hpp"
#include "reports/evidence.hpp"
#include "reports/number_text.hpp"

namespace mcpping {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::pair<char, std::string_view> kEntities[] = {
    {'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&apos;"}};

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not one.
std::size_t utf8_sequence_length(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  const std::size_t length = lead >= 0xC2 && lead <= 0xDF   ? 2
                             : lead >= 0xE0 && lead <= 0xEF ? 3
                             : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                            : 0;
  if (length == 0 || i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  // Overlong forms, surrogates and code points beyond U+10FFFF are not valid XML text.
  if (lead == 0xE0 && byte(i + 1) < 0xA0) return 0;
  if (lead == 0xED && byte(i + 1) >= 0xA0) return 0;
  if (lead == 0xF0 && byte(i + 1) < 0x90) return 0;
  if (lead == 0xF4 && byte(i + 1) >= 0x90) return 0;
  if (lead == 0xEF && byte(i + 1) == 0xBF && byte(i + 2) >= 0xBE) return 0;  // U+FFFE, U+FFFF
  return length;
}

std::string seconds(double ms) { return number_text::fixed(ms / 1000.0, 3); }

// <failure> elements: FAIL, NON_STRICT under --strict, and stale baseline entries (a stale
// entry's case passed, so it is counted in `pass`, never in `fail`).
std::size_t failures(const VerdictCounts& counts, bool strict) {
  return counts.fail + (strict ? counts.non_strict : 0) + counts.stale;
}

void write_property(std::ostringstream& out, const std::string& name, const std::string& value) {
  out << "      <property name=\"" << xml_escape(name) << "\" value=\"" << xml_escape(value)
      << "\"/>\n";
}

// What a <testcase> says, for a case or a finding alike.
struct TestcaseText {
  std::string classname;
  std::string name;
  double duration_ms = 0;
  Verdict verdict = Verdict::Pass;
  Expectation expectation = Expectation::kNone;
  std::string expectation_reason;
  std::string reason;    // UNSUPPORTED: why
  std::string headline;  // the first notable check
  std::string evidence;  // the failure body
};

void write_testcase(std::ostringstream& out, const TestcaseText& t, bool strict) {
  out << "    <testcase classname=\"" << xml_escape(t.classname) << "\" name=\""
      << xml_escape(t.name) << "\" time=\"" << seconds(t.duration_ms) << "\"";
  const bool non_strict_fails = strict && t.verdict == Verdict::NonStrict;
  // What a baseline says comes first: expected failures are skipped, stale entries fail.
  if (t.verdict != Verdict::Error) {
    switch (t.expectation) {
      case Expectation::kExpectedFailure:
        out << ">\n      <skipped type=\"xfail\" message=\""
            << xml_escape(shorten("expected failure (baseline): " + t.expectation_reason, 400))
            << "\"/>\n      <system-out>" << xml_escape(t.evidence)
            << "</system-out>\n    </testcase>\n";
        return;
      case Expectation::kStale:
        out << ">\n      <failure type=\"STALE\" message=\""
            << xml_escape(shorten("stale baseline entry: it passed; " + t.expectation_reason, 400))
            << "\"/>\n    </testcase>\n";
        return;
      case Expectation::kFlaky:
        if (t.verdict == Verdict::Pass) break;
        out << ">\n      <system-out>"
            << xml_escape("flaky (baseline, not gating): " + t.expectation_reason + "\n" +
                          t.evidence)
            << "</system-out>\n    </testcase>\n";
        return;
      case Expectation::kNone:
        break;
    }
  }
  switch (t.verdict) {
    case Verdict::Pass:
      out << "/>\n";
      return;
    case Verdict::Unsupported:
      out << ">\n      <skipped message=\"" << xml_escape("UNSUPPORTED: " + t.reason) << "\"/>\n";
      break;
    case Verdict::Error:
      out << ">\n      <error type=\"ERROR\" message=\"" << xml_escape(shorten(t.headline, 400))
          << "\">" << xml_escape(t.evidence) << "</error>\n";
      break;
    case Verdict::Fail:
    case Verdict::NonStrict:
      if (t.verdict == Verdict::Fail || non_strict_fails) {
        out << ">\n      <failure type=\"" << to_string(t.verdict) << "\" message=\""
            << xml_escape(shorten(t.headline, 400)) << "\">" << xml_escape(t.evidence)
            << "</failure>\n";
        break;
      }
      [[fallthrough]];
    case Verdict::Informational:
      // Not a failure in this mode, but worth reading: keep it visible as output.
      out << ">\n      <system-out>"
          << xml_escape(std::string(to_string(t.verdict)) + "\n" + t.evidence) << "</system-out>\n";
      break;
  }
  out << "    </testcase>\n";
}

TestcaseText case_text(const CaseResult& result) {
  const auto notable = notable_checks(result);
  return {"mcp." + result.transport,
          result.case_id,
          result.duration_ms,
          result.verdict,
          result.expectation,
          result.expectation_reason,
          result.reason,
          notable.empty() ? result.reason : check_headline(*notable[0]),
          evidence_text(result)};
}

TestcaseText finding_text(const Finding& finding) {
  std::string evidence = finding_line(finding) + "\n  Expected: " + finding.expected +
                         "\n  first seen in " + finding.example_case + ": " + finding.example +
                         "\n  cases: " + join(finding.cases, ", ") + "\n";
  for (const auto& ref : finding.spec)
    evidence += "  spec: \"" + ref.text + "\"\n        " + ref.url + "\n";
  return {"mcp." + finding.transport + ".findings",
          finding.check,
          0,
          finding.verdict,
          finding.expectation,
          finding.expectation_reason,
          "",
          finding_line(finding),
          evidence};
}

// Counts of one <testsuite>'s findings, added to its cases' counts.
void count_findings(const std::vector<const Finding*>& findings, bool strict, std::size_t& tests,
                    std::size_t& failed, std::size_t& skipped) {
  for (const Finding* f : findings) {
    ++tests;
    if (f->expectation == Expectation::kExpectedFailure) {
      ++skipped;
    } else if (finding_fails_run(*f, strict)) {
      ++failed;
    }
  }
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      const auto entity = std::find_if(std::begin(kEntities), std::end(kEntities),
                                       [&](const auto& e) { return e.first == text[i]; });
      if (entity != std::end(kEntities)) {
        out += entity->second;
      } else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
        out += kReplacement;
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  return out;
}

std::string render_junit(const RunResult& run) {
  // One <testsuite> per transport, in the order the transports first appear, and one more
  // per transport for its findings.
  std::map<std::string, std::vector<CaseResult>> by_transport;
  for (const auto& result : run.cases) by_transport[result.transport].push_back(result);
  std::map<std::string, std::vector<const Finding*>> findings;
  for (const auto& finding : run.findings) findings[finding.transport].push_back(&finding);
  const bool strict = run.info.strict;
  const VerdictCounts all = count_verdicts(run.cases);
  std::size_t tests = all.total, failed = failures(all, strict),
              skipped = all.unsupported + all.expected_failures;
  for (const auto& [transport, list] : findings)
    count_findings(list, strict, tests, failed, skipped);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"mcp-ping-conformance\" tests=\"" << tests << "\" failures=\"" << failed
      << "\" errors=\"" << all.error << "\" skipped=\"" << skipped << "\" time=\""
      << seconds(run.duration_ms) << "\">\n";
  const auto properties = [&](const std::string& transport) {
    out << "    <properties>\n";
    write_property(out, "suite_version", run.info.suite_version);
    write_property(out, "strictness", strict ? "strict" : "lenient");
    write_property(out, "revision", run.info.revision);
    write_property(out, "transport", transport);
    write_property(out, "timeout_multiplier", std::to_string(run.info.timeout_multiplier));
    write_property(out, "schema_validation", schema_validation_line(run.info));
    if (!run.baseline_file.empty()) write_property(out, "baseline", run.baseline_file);
    out << "    </properties>\n";
  };
  for (const auto& transport : transports_of(run)) {
    const auto& cases = by_transport[transport];
    double time_ms = 0;
    for (const auto& result : cases) time_ms += result.duration_ms;
    const VerdictCounts counts = count_verdicts(cases);
    out << "  <testsuite name=\"mcp." << xml_escape(transport) << "\" tests=\"" << counts.total
        << "\" failures=\"" << failures(counts, strict) << "\" errors=\"" << counts.error
        << "\" skipped=\"" << counts.unsupported + counts.expected_failures << "\" time=\""
        << seconds(time_ms) << "\">\n";
    properties(transport);
    for (const auto& result : cases) write_testcase(out, case_text(result), strict);
    out << "  </testsuite>\n";
    const auto& list = findings[transport];
    if (list.empty()) continue;
    std::size_t f_tests = 0, f_failed = 0, f_skipped = 0;
    count_findings(list, strict, f_tests, f_failed, f_skipped);
    out << "  <testsuite name=\"mcp." << xml_escape(transport) << ".findings\" tests=\"" << f_tests
        << "\" failures=\"" << f_failed << "\" errors=\"0\" skipped=\"" << f_skipped
        << "\" time=\"0.000\">\n";
    properties(transport);
    for (const Finding* finding : list) write_testcase(out, finding_text(*finding), strict);
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

void write_junit(const RunResult& run, const std::filesystem::path& file) {
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
  write_file_atomically(file, render_junit(run));
}

}  // namespace mcpping
