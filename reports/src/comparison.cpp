#include "reports/comparison.hpp"

#include <map>
#include <set>
#include <sstream>

#include "reports/markdown.hpp"

namespace mcpping {

namespace {

// One cell: the verdict, marked when a baseline expected it or found it stale.
std::string cell(const CaseResult& result) {
  std::string text(to_string(result.verdict));
  switch (result.expectation) {
    case CaseResult::Expectation::kExpectedFailure:
      return text + " (baseline)";
    case CaseResult::Expectation::kFlaky:
      return text + " (flaky)";
    case CaseResult::Expectation::kStale:
      return text + " (stale baseline)";
    case CaseResult::Expectation::kNone:
      break;
  }
  return text;
}

}  // namespace

std::string render_comparison_markdown(const std::vector<LabelledRun>& runs) {
  // Rows: every (case, transport) any run has, sorted by case then transport.
  std::set<std::pair<std::string, std::string>> rows;
  std::vector<std::map<std::pair<std::string, std::string>, const CaseResult*>> cells(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const auto& result : runs[i].run.cases) {
      const auto key = std::make_pair(result.case_id, result.transport);
      rows.insert(key);
      cells[i][key] = &result;
    }
  }
  std::ostringstream out;
  out << "| case | transport |";
  for (const auto& run : runs) out << " " << run.label << " |";
  out << "\n|---|---|";
  for (std::size_t i = 0; i < runs.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& key : rows) {
    out << "| `" << key.first << "` | " << key.second << " |";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const auto it = cells[i].find(key);
      out << " " << (it == cells[i].end() ? std::string("not run") : cell(*it->second)) << " |";
    }
    out << "\n";
  }
  out << "| **total** | |";
  for (const auto& run : runs) out << " " << closing_line(run.run).substr(6) << " |";
  out << "\n";
  return out.str();
}

}  // namespace mcpping
