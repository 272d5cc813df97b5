#include "reports/markdown.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/text.hpp"
#include "reports/evidence.hpp"
#include "reports/json_report.hpp"

namespace mcpping {

namespace {

std::string ms(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
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

}  // namespace

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string closing_line(const RunResult& run) {
  const VerdictCounts c = count_verdicts(run.cases);
  std::ostringstream line;
  line << "Total " << c.total << ": " << c.pass << " passed, " << c.fail << " failed, "
       << c.expected_failures << " expected failures, " << c.unsupported << " unsupported, "
       << c.informational << " informational, " << c.error << " errors";
  if (c.non_strict) line << ", " << c.non_strict << " non-strict";
  if (c.flaky) line << ", " << c.flaky << " flaky";
  if (c.stale) line << ", " << c.stale << " stale baseline entries";
  return line.str();
}

std::string render_summary_markdown(const RunResult& run) {
  const VerdictCounts c = count_verdicts(run.cases);
  std::ostringstream out;
  out << "## mcp-ping-conformance " << run.info.suite_version << "\n\n"
      << "Revision " << run.info.revision << ", " << (run.info.strict ? "strict" : "lenient")
      << ", timeout multiplier " << run.info.timeout_multiplier << ", pong cap "
      << ms(run.info.pong_cap_ms) << " ms.\n\n"
      << closing_line(run) << "\n\n"
      << "| verdict | cases |\n|---|---|\n"
      << "| PASS | " << c.pass << " |\n| FAIL | " << c.fail << " |\n| NON_STRICT | " << c.non_strict
      << " |\n| expected failure | " << c.expected_failures << " |\n| flaky | " << c.flaky
      << " |\n| INFORMATIONAL | " << c.informational << " |\n| UNSUPPORTED | " << c.unsupported
      << " |\n| ERROR | " << c.error << " |\n";

  const auto collateral = collateral_defects(run);
  if (!collateral.empty()) {
    out << "\n### Collateral defects\n\nOne defect outside the cases' subject; each case's own "
           "checks are still judged apart.\n\n| check | level | cases | first seen |\n"
           "|---|---|---|---|\n";
    for (const auto& d : collateral) {
      out << "| `" << d.check << "` | " << to_string(d.level) << " | " << d.cases << " | "
          << markdown_cell(shorten(d.example, 160)) << " |\n";
    }
  }
  std::ostringstream failing;
  for (const auto& result : run.cases) {
    if (!case_fails_run(result, run.info.strict)) continue;
    const std::string verdict = result.expectation == CaseResult::Expectation::kStale
                                    ? "stale baseline entry"
                                    : std::string(to_string(result.verdict));
    failing << "| `" << result.case_id << "` | " << result.transport << " | " << verdict << " | "
            << (result.expectation == CaseResult::Expectation::kStale
                    ? "listed in the baseline, but passed: " +
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
    if (result.expectation != CaseResult::Expectation::kExpectedFailure) continue;
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
  std::ostringstream latency;
  for (const auto& result : run.cases) {
    const auto figures = latency_figures(result);
    if (figures.count == 0) continue;
    latency << "| `" << result.case_id << "` | " << result.transport << " | " << figures.count
            << " | " << ms(figures.p50) << " | " << ms(figures.p95) << " | " << ms(figures.max)
            << " |\n";
  }
  if (!latency.str().empty()) {
    out << "\n### Pong latency (ms)\n\n| case | transport | pongs | p50 | p95 | max |\n"
        << "|---|---|---|---|---|---|\n"
        << latency.str();
  }
  return out.str();
}

void write_summary_markdown(const RunResult& run, const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << render_summary_markdown(run);
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace mcpping
