// summary.md: a run's summary for a CI job summary or a pull-request comment.
#pragma once

#include <filesystem>
#include <string>

#include "reports/results.hpp"

namespace mcpping {

std::string render_summary_markdown(const RunResult& run);
void write_summary_markdown(const RunResult& run, const std::filesystem::path& file);

// "Total N: P passed, F failed, X expected failures, U unsupported, I informational, E errors"
// (plus non-strict, flaky and stale counts when there are any).
std::string closing_line(const RunResult& run);

// Text made safe for one Markdown table cell: '|' escaped, line breaks as spaces.
std::string markdown_cell(const std::string& text);

}  // namespace mcpping
