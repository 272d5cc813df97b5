// summary.md: a run's summary for a CI job summary or a pull-request comment.
#pragma once

#include <string>
#include <vector>

#include "reports/results.hpp"

namespace mcpping {

// The summary ends with an issue text for each FAIL and NON_STRICT case, each folded, the
// first kIssueReportsInSummary of them (the rest on the cases' HTML pages).
inline constexpr std::size_t kIssueReportsInSummary = 20;
std::string render_summary_markdown(const RunResult& run);

// "Total N: P passed, F failed, X expected failures, U unsupported, I informational, E errors"
// (plus non-strict, flaky and stale counts when there are any).
std::string closing_line(const RunResult& run);

// The run's latency for the console: single pongs per transport, then each burst.
//   single-pong latency, stdio: p50 0.21 ms, p95 0.40 ms, max 1.02 ms (58 pongs)
//   burst ping/burst, stdio: 1000/1000 pongs, the last 180.52 ms after the first ping, 5540
//   pongs/s
std::vector<std::string> latency_lines(const RunResult& run);

// Text made safe for one Markdown table cell: '|' escaped, line breaks as spaces.
std::string markdown_cell(const std::string& text);

}  // namespace mcpping
