// An upstream bug report for a failing case, ready to file: a title and a Markdown body with
// the spec sentence each failing check cites, Expected / Actual, the transcript excerpt and
// the one command that reruns the case against the suite. Case pages and summary.md offer it.
#pragma once

#include <string>
#include <string_view>

#include "reports/results.hpp"

namespace mcpping {

struct IssueReport {
  std::string title;  // one line
  std::string body;   // Markdown
};

// Whether a case gets one: its verdict is FAIL or NON_STRICT, whatever a baseline says of it
// (an expected failure is a known defect, still worth filing upstream).
bool wants_issue_report(const CaseResult& result);

IssueReport issue_report(const CaseResult& result, const RunInfo& info);

// The command that reruns one case, as it would be pasted into a shell: `mcp-ping-conformance
// run --scenario ID --transport T --revision R ... -- <driver argv>`, or `serve` when the run
// had no driver.
std::string reproduce_command(const CaseResult& result, const RunInfo& info);

// A Markdown code fence of backticks longer than any run of backticks in `text` (at least 3).
std::string markdown_fence(std::string_view text);

}  // namespace mcpping
