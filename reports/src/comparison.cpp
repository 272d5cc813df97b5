#include "reports/comparison.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

#include "reports/html.hpp"
#include "reports/markdown.hpp"

namespace mcpping {

namespace fs = std::filesystem;

namespace {

// One cell: the verdict, marked when a baseline expected it or found it stale.
std::string cell(const CaseResult& result) {
  // In the order of Expectation's enumerators.
  constexpr std::string_view kMarks[] = {"", " (baseline)", " (flaky)", " (stale baseline)"};
  return std::string(to_string(result.verdict)) +
         std::string(kMarks[static_cast<std::size_t>(result.expectation)]);
}

// "92: 77 passed, ..." of the closing line.
std::string totals(const RunResult& run) { return closing_line(run).substr(6); }

// The href of `file` from `page_dir`, or nothing when there is no such file.
std::optional<std::string> link_to(const fs::path& file, const fs::path& page_dir) {
  std::error_code error;
  if (!fs::is_regular_file(file, error)) return std::nullopt;
  const fs::path relative = fs::relative(file, page_dir, error);
  if (error || relative.empty()) return std::nullopt;
  return html_href(relative);
}

std::string column_heading(const ReportColumn& column, const fs::path& page_dir) {
  const RunResult& run = column.labelled.run;
  const auto index = link_to(column.report_dir / "html" / "index.html", page_dir);
  const std::string label = html_escape(column.labelled.label);
  return "<th class=\"client\">" +
         (index ? "<a href=\"" + *index + "\">" + label + "</a>" : label) +
         "<span class=\"title\">" + html_escape(run.info.revision) + ", " +
         (run.info.strict ? "strict" : "lenient") + "<br>" +
         html_escape(run.started_at.substr(0, 10)) + "</span></th>";
}

std::string cell_html(const ReportColumn& column, const CaseResult& result,
                      const fs::path& page_dir) {
  const auto page = link_to(
      column.report_dir / "html" / html_case_page(0, result.transport, result.case_id), page_dir);
  const auto transcript = result.evidence_dir.empty()
                              ? std::nullopt
                              : link_to(result.evidence_dir / "transcript.txt", page_dir);
  const std::string text = html_escape(cell(result));
  const std::string reason = html_cell_reason(result);
  std::string out = "<td class=\"" + html_cell_class(result) + "\"" +
                    (reason.empty() ? "" : " title=\"" + html_escape(reason) + "\"") + ">";
  out += page ? "<a href=\"" + *page + "\">" + text + "</a>" : text;
  if (transcript) out += " <a class=\"tx\" href=\"" + *transcript + "\">transcript</a>";
  return out + "</td>";
}

}  // namespace

CaseMatrix case_matrix(const std::vector<LabelledRun>& runs) {
  CaseMatrix matrix;
  matrix.cells.resize(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const auto& result : runs[i].run.cases) {
      const CaseMatrix::Key key{result.case_id, result.transport};
      matrix.rows.insert(key);
      matrix.titles.emplace(result.case_id, result.title);
      matrix.cells[i][key] = &result;
    }
  }
  return matrix;
}

std::string render_comparison_markdown(const std::vector<LabelledRun>& runs) {
  const CaseMatrix matrix = case_matrix(runs);
  const auto& cells = matrix.cells;
  std::ostringstream out;
  out << "| case | transport |";
  for (const auto& run : runs) out << " " << run.label << " |";
  out << "\n|---|---|";
  for (std::size_t i = 0; i < runs.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& key : matrix.rows) {
    out << "| `" << key.first << "` | " << key.second << " |";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const auto it = cells[i].find(key);
      out << " " << (it == cells[i].end() ? std::string("not run") : cell(*it->second)) << " |";
    }
    out << "\n";
  }
  out << "| **total** | |";
  for (const auto& run : runs) out << " " << totals(run.run) << " |";
  out << "\n";
  return out.str();
}

std::string render_comparison_html(const std::vector<ReportColumn>& columns,
                                   const fs::path& page_dir, const std::string& generated_at,
                                   const std::string& suite_version) {
  std::vector<LabelledRun> runs;
  for (const auto& column : columns) runs.push_back(column.labelled);
  const CaseMatrix matrix = case_matrix(runs);
  std::ostringstream out;
  out << html_page_start("mcp-ping-conformance: clients side by side")
      << "<h1>mcp-ping-conformance: clients side by side</h1>\n<p class=\"sub\">Generated "
      << html_escape(generated_at) << " with mcp-ping-conformance " << html_escape(suite_version)
      << ". Each cell links to the client's page for the case (its checks, the spec sentences, "
         "Expected / Actual, an issue text for a failure) and to its transcript; each client's "
         "name to its whole report.</p>\n"
      << html_legend()
      << "<table class=\"matrix side\">\n<thead><tr><th>case</th><th>transport</th>";
  for (const auto& column : columns) out << column_heading(column, page_dir);
  out << "</tr></thead>\n<tbody>\n";
  for (auto row = matrix.rows.begin(); row != matrix.rows.end();) {
    const auto group_end = std::find_if(row, matrix.rows.end(),
                                        [&](const auto& key) { return key.first != row->first; });
    out << "<tr><th scope=\"row\" rowspan=\"" << std::distance(row, group_end) << "\"><code>"
        << html_escape(row->first) << "</code><span class=\"title\">"
        << html_escape(matrix.titles.at(row->first)) << "</span></th>";
    for (bool first = true; row != group_end; ++row, first = false) {
      out << (first ? "" : "<tr>") << "<td class=\"transport\">" << html_escape(row->second)
          << "</td>";
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const auto it = matrix.cells[i].find(*row);
        out << (it == matrix.cells[i].end() ? "<td class=\"v-none\" title=\"not run\">not run</td>"
                                            : cell_html(columns[i], *it->second, page_dir));
      }
      out << "</tr>\n";
    }
  }
  out << "</tbody>\n<tfoot><tr><th>total</th><td></td>";
  for (const auto& run : runs)
    out << "<td class=\"total\">" << html_escape(totals(run.run)) << "</td>";
  out << "</tr></tfoot>\n</table>\n" << html_page_end();
  return out.str();
}

}  // namespace mcpping
