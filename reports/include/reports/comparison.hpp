// A side-by-side table of several runs (one per client), case by case and transport by
// transport, for a README or a release note: `mcp-ping-conformance table`.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "reports/results.hpp"

namespace mcpping {

struct LabelledRun {
  std::string label;  // the column heading, e.g. "TypeScript SDK 1.32.2"
  RunResult run;
};

// Every (case, transport) any run has, sorted by case then transport, and each run's cases.
struct CaseMatrix {
  using Key = std::pair<std::string, std::string>;  // case id, transport
  std::set<Key> rows;
  std::map<std::string, std::string> titles;  // case id -> title
  std::vector<std::map<Key, const CaseResult*>> cells;
};
CaseMatrix case_matrix(const std::vector<LabelledRun>& runs);

std::string render_comparison_markdown(const std::vector<LabelledRun>& runs);

// A client of the side-by-side HTML page: its run and the folder `run --report-dir` wrote.
struct ReportColumn {
  LabelledRun labelled;
  std::filesystem::path report_dir;
};

// The side-by-side page (`table --html FILE`), after Autobahn|Testsuite's client reports: one
// column per client (its label, run and a link to its own report), one row per case and
// transport, each cell the verdict coloured as in the HTML report ("(baseline)" marked as in
// the Markdown table), linking to that client's page for the case and to its transcript. Links
// are relative to `page_dir` (the folder the page is written to) and only to files that exist,
// so the folder that holds the page and the report folders can be published as a whole.
std::string render_comparison_html(const std::vector<ReportColumn>& columns,
                                   const std::filesystem::path& page_dir,
                                   const std::string& generated_at,
                                   const std::string& suite_version);

}  // namespace mcpping
