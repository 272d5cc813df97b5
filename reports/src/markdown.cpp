#include "reports/markdown.hpp"

#include <algorithm>
#include <sstream>

#include "core/text.hpp"
#include "reports/html.hpp"
#include "reports/issue_report.hpp"
#include "reports/json_report.hpp"
#include "reports/number_text.hpp"

namespace mcpping {

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' || c == '\r' ? ' ' : c;
  }
  return out;
}

namespace {

using number_text::ms;
using number_text::per_second;
using number_text::pongs_of_pings;

// Single pongs per transport (and by case, folded away), then each burst.
std::string latency_section(const RunResult& run) {
  std::ostringstream single, burst;
  for (const auto& transport : transports_of(run)) {
    if (const auto figures = single_pong_figures(run, transport); figures.count > 0) {
      single << "| " << transport << " | " << figures.count << " | " << ms(figures.p50) << " | "
             << ms(figures.p95) << " | " << ms(figures.max) << " |\n";
    }
    for (const auto& [result, check] : bursts_of(run, transport)) {
      burst << "| `" << result->case_id << "` | " << transport << " | "
            << pongs_of_pings(*check->burst) << " | " << ms(check->burst->time_to_last_pong_ms)
            << " | " << per_second(check->burst->pongs_per_second) << " |\n";
    }
  }
  std::ostringstream by_case;
  for (const auto& result : run.cases) {
    const auto figures = single_pong_figures(result);
    if (figures.count == 0) continue;
    by_case << "| `" << result.case_id << "` | " << result.transport << " | " << figures.count
            << " | " << ms(figures.p50) << " | " << ms(figures.p95) << " | " << ms(figures.max)
            << " |\n";
  }
  std::ostringstream out;
  if (!single.str().empty()) {
    out << "\n### Single-pong latency (ms)\n\nOne ping at a time, from the ping written to its "
           "pong received; the pongs of bursts are not counted here.\n\n| transport | pongs | p50 "
           "| p95 | max |\n"
           "|---|---|---|---|---|\n"
        << single.str()
        << "\n<details><summary>By case</summary>\n\n| case | transport | pongs | p50 | p95 | max "
           "|\n|---|---|---|---|---|---|\n"
        << by_case.str() << "\n</details>\n";
  }
  if (!burst.str().empty()) {
    out << "\n### Burst\n\nSeveral pings written at once, timed from the first ping written "
           "to the last pong received.\n\n| case | transport | pongs | time to last pong (ms) | "
           "pongs/s |\n|---|---|---|---|---|\n"
        << burst.str();
  }
  return out.str();
}

// The first notable check's one-line reason and its spec link.
std::string one_line_reason(const CaseResult& result) {
  const auto notable = notable_checks(result);
  if (notable.empty()) return markdown_cell(shorten(result.reason, 200));
  const CheckResult& check = *notable.front();
  std::string text = "`" + check.id + "` [" + std::string(to_string(check.level)) +
                     "]: " + markdown_cell(shorten(check.actual, 200));
  if (!check.spec.empty() && !check.spec.front().url.empty()) {
    text += " ([spec](" + check.spec.front().url + "))";
  }
  return text;
}

// One cause behind three or more cases, named once before the cases it explains.
std::string root_causes_section(const RunResult& run) {
  const auto causes = root_causes(run);
  if (causes.empty()) return {};
  std::ostringstream out;
  out << "\n### Root causes\n\nOne defect behind several cases: fix it first.\n\n"
         "| cases | transport | check | verdict | first evidence |\n|---|---|---|---|---|\n";
  for (const auto& cause : causes) {
    out << "| " << cause.cases.size() << " | " << cause.transport << " | `" << cause.check << "`"
        << (cause.finding ? " (finding)" : "") << " | " << to_string(cause.verdict) << " | "
        << markdown_cell(shorten(cause.evidence, 160)) << " |\n";
  }
  return out.str();
}

// Collateral checks: the client in general, judged once per run and transport.
std::string findings_section(const RunResult& run) {
  if (run.findings.empty()) return {};
  std::ostringstream out;
  out << "\n### Findings\n\nAbout the transport or the client in general, not one case's "
         "subject: each is judged once by its own level and never changes a case's verdict.\n\n"
         "| check | transport | level | verdict | cases | first evidence |\n"
         "|---|---|---|---|---|---|\n";
  for (const auto& f : run.findings) {
    std::string verdict(to_string(f.verdict));
    if (f.expectation == Expectation::kExpectedFailure) verdict += " (baseline)";
    if (f.expectation == Expectation::kStale) verdict = "stale baseline entry";
    if (f.expectation == Expectation::kFlaky) verdict += " (flaky)";
    out << "| `" << f.check << "` | " << f.transport << " | " << to_string(f.level) << " | "
        << verdict << " | " << f.cases.size() << " | " << markdown_cell(shorten(f.example, 160))
        << " |\n";
  }
  return out.str();
}

// Each FAIL or NON_STRICT case's upstream issue, folded under its case so that the summary
// stays a page of tables; the first kIssueReportsInSummary only, the rest on the case pages.
std::string issue_reports_section(const RunResult& run) {
  std::vector<const CaseResult*> cases;
  for (const auto& result : run.cases)
    if (wants_issue_report(result)) cases.push_back(&result);
  if (cases.empty()) return {};
  std::ostringstream out;
  out << "\n### Issue reports\n\nFor each FAIL and NON_STRICT case (expected failures too), an "
         "issue to file with the client's project: title, the spec sentence, Expected / Actual, "
         "the transcript excerpt and the command that reruns the case.\n";
  const std::size_t shown = std::min(cases.size(), kIssueReportsInSummary);
  for (std::size_t i = 0; i < shown; ++i) {
    const IssueReport issue = issue_report(*cases[i], run.info);
    const std::string fence = markdown_fence(issue.body);
    out << "\n<details><summary><code>" << html_escape(cases[i]->case_id) << "</code> ("
        << html_escape(cases[i]->transport) << "), " << to_string(cases[i]->verdict)
        << "</summary>\n\n**Title:** " << markdown_cell(issue.title) << "\n\n"
        << fence << "markdown\n"
        << issue.body << fence << "\n\n</details>\n";
  }
  if (shown < cases.size()) {
    out << "\n"
        << cases.size() - shown << " more: each failing case's page in `html/cases/` "
        << "offers its issue text.\n";
  }
  return out.str();
}

}  // namespace

std::string closing_line(const RunResult& run) {
  const VerdictCounts c = count_verdicts(run.cases);
  std::ostringstream line;
  line << "Total " << c.total << ": " << c.pass << " passed, " << c.fail << " failed, "
       << c.expected_failures << " expected failures, " << c.unsupported << " unsupported, "
       << c.informational << " informational, " << c.error << " errors";
  if (c.non_strict) line << ", " << c.non_strict << " non-strict";
  if (c.flaky) line << ", " << c.flaky << " flaky";
  if (c.stale) line << ", " << c.stale << " stale baseline entries";
  // Findings fail the run by their own level, so a run with no failed case can still fail.
  const auto failing =
      std::count_if(run.findings.begin(), run.findings.end(),
                    [&](const Finding& f) { return finding_fails_run(f, run.info.strict); });
  if (!run.findings.empty())
    line << "; " << run.findings.size() << (run.findings.size() == 1 ? " finding, " : " findings, ")
         << failing << " failing the run";
  return line.str();
}

std::string render_summary_markdown(const RunResult& run) {
  const VerdictCounts c = count_verdicts(run.cases);
  std::ostringstream out;
  out << "## mcp-ping-conformance " << run.info.suite_version << "\n\n"
      << "Revision " << run.info.revision << ", " << (run.info.strict ? "strict" : "lenient")
      << ", timeout multiplier " << run.info.timeout_multiplier << ", pong cap "
      << ms(run.info.pong_cap_ms) << " ms; " << schema_validation_line(run.info) << ".\n\n"
      << closing_line(run) << "\n\n"
      << "| verdict | cases |\n|---|---|\n"
      << "| PASS | " << c.pass << " |\n| FAIL | " << c.fail << " |\n| NON_STRICT | " << c.non_strict
      << " |\n| expected failure | " << c.expected_failures << " |\n| flaky | " << c.flaky
      << " |\n| INFORMATIONAL | " << c.informational << " |\n| UNSUPPORTED | " << c.unsupported
      << " |\n| ERROR | " << c.error << " |\n";

  out << root_causes_section(run) << findings_section(run);
  std::ostringstream failing;
  for (const auto& result : run.cases) {
    if (!case_fails_run(result, run.info.strict)) continue;
    const bool stale = result.expectation == Expectation::kStale;
    failing << "| `" << result.case_id << "` | " << result.transport << " | "
            << (stale ? "stale baseline entry" : std::string(to_string(result.verdict))) << " | "
            << (stale ? "listed in the baseline, but passed: " +
                            markdown_cell(result.expectation_reason)
                      : one_line_reason(result))
            << " |\n";
  }
  if (!failing.str().empty()) {
    out << "\n### Failing\n\n| case | transport | verdict | reason |\n|---|---|---|---|\n"
        << failing.str();
  }
  std::ostringstream expected;
  for (const auto& result : run.cases) {
    if (result.expectation != Expectation::kExpectedFailure) continue;
    expected << "| `" << result.case_id << "` | " << result.transport << " | "
             << to_string(result.verdict) << " | " << markdown_cell(result.expectation_reason)
             << " |\n";
  }
  if (!expected.str().empty()) {
    out << "\n### Expected failures (baseline)\n\n| case | transport | verdict | reason |\n"
        << "|---|---|---|---|\n"
        << expected.str();
  }
  if (!run.unknown_baseline_entries.empty()) {
    out << "\n### Baseline entries that name no case or check\n\n";
    for (const auto& entry : run.unknown_baseline_entries) out << "- `" << entry << "`\n";
  }
  out << latency_section(run) << issue_reports_section(run);
  return out.str();
}

std::vector<std::string> latency_lines(const RunResult& run) {
  std::vector<std::string> lines;
  for (const auto& transport : transports_of(run)) {
    const auto figures = single_pong_figures(run, transport);
    if (figures.count == 0) continue;
    lines.push_back("single-pong latency, " + transport + ": " +
                    number_text::latency_text(figures) + " (" + std::to_string(figures.count) +
                    (figures.count == 1 ? " pong)" : " pongs)"));
  }
  for (const auto& transport : transports_of(run)) {
    for (const auto& [result, check] : bursts_of(run, transport)) {
      lines.push_back("burst " + result->case_id + ", " + transport + ": " +
                      number_text::burst_text(*check->burst));
    }
  }
  return lines;
}

}  // namespace mcpping
