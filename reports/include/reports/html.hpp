// A static HTML report of one run or of several side by side (one per client): index.html
// with a case × transport matrix, single-pong latency charts and a burst table, and a page
// per case with its checks and transcript. Self-contained: inline CSS and SVG, no script, no
// external resource.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "reports/comparison.hpp"

namespace mcpping {

// Writes <dir>/index.html and one page per case at html_case_page(); replaces <dir>/cases.
// Transcripts are read from each case's evidence_dir.
void write_html_report(const std::vector<LabelledRun>& runs, const std::filesystem::path& dir);

// A case's page relative to the report folder: cases/<client index>/<transport>/<case id>.html.
// Each '/'-separated part of the id is a folder; in every part, bytes other than [A-Za-z0-9-]
// are spelled _xx (hex), so untrusted ids and transports cannot leave the folder or collide.
std::filesystem::path html_case_page(std::size_t client, const std::string& transport,
                                     const std::string& case_id);

// Text safe as HTML content and as a quoted attribute value (broken UTF-8 and control
// characters become U+FFFD).
std::string html_escape(std::string_view text);

// A relative path as an href attribute's value: bytes other than [A-Za-z0-9-._~/] as %xx.
std::string html_href(const std::filesystem::path& relative);

// The parts every page of the report shares, for other pages in its style (the side-by-side
// page of `table --html`): the head with the style sheet and the policy, the end, the legend
// of the cell colours, a case cell's colour class and its tooltip (why it is not a plain PASS).
std::string html_page_start(const std::string& title);
std::string_view html_page_end();
std::string_view html_legend();
std::string html_cell_class(const CaseResult& result);
std::string html_cell_reason(const CaseResult& result);

}  // namespace mcpping
