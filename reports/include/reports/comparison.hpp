// A side-by-side table of several runs (one per client), case by case and transport by
// transport, for a README or a release note: `mcp-ping-conformance table`.
#pragma once

#include <string>
#include <vector>

#include "reports/results.hpp"

namespace mcpping {

struct LabelledRun {
  std::string label;  // the column heading, e.g. "TypeScript SDK 1.32.2"
  RunResult run;
};

std::string render_comparison_markdown(const std::vector<LabelledRun>& runs);

}  // namespace mcpping
