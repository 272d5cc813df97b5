#include "reports/comparison.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "reports/html.hpp"

#include "test_runs.hpp"

namespace mcpping {
namespace {

using test::make_case;
using test::make_check;
using test::make_run;

TEST(Comparison, OneRowPerCaseAndTransportOneColumnPerRun) {
  auto expected = make_case("ping/b", {make_check("ping/b:pong", Verdict::Fail)});
  expected.expectation = CaseResult::Expectation::kExpectedFailure;
  const std::vector<LabelledRun> runs = {
      {"reference", make_run({make_case("ping/a", {make_check("ping/a:pong", Verdict::Pass)}),
                              make_case("ping/b", {make_check("ping/b:pong", Verdict::Pass)})})},
      {"other 1.0", make_run({expected})}};
  const std::string md = render_comparison_markdown(runs);
  EXPECT_NE(md.find("| case | transport | reference | other 1.0 |\n|---|---|---|---|\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `ping/a` | stdio | PASS | not run |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `ping/b` | stdio | PASS | FAIL (baseline) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **total** | | 2: 2 passed, 0 failed,"), std::string::npos) << md;
}

namespace fs = std::filesystem;

fs::path comparison_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / "mcp-ping-comparison-test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void touch_file(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "x";
}

// Clients as columns, case and transport as rows; each cell links, relative to the page, to
// the client's own page for the case and to its transcript, where they exist.
TEST(ComparisonHtml, CellsLinkToEachClientsCasePageAndTranscript) {
  const auto out = comparison_dir("links");
  auto failing = make_case("ping/b", {make_check("ping/b:pong", Verdict::Fail)});
  failing.expectation = CaseResult::Expectation::kExpectedFailure;
  failing.evidence_dir = out / "my sdk" / "cases" / "stdio" / "ping" / "b";
  touch_file(failing.evidence_dir / "transcript.txt");
  touch_file(out / "my sdk" / "html" / html_case_page(0, "stdio", "ping/b"));
  touch_file(out / "my sdk" / "html" / "index.html");
  auto passing = make_case("ping/b", {make_check("ping/b:pong", Verdict::Pass)});
  const std::vector<ReportColumn> columns = {
      {{"reference 0.1.0", make_run({passing, make_case("ping/a", {}, "sse")})}, out / "ref"},
      {{"<My> SDK 1.0", make_run({failing})}, out / "my sdk"}};
  const std::string page = render_comparison_html(columns, out, "2026-12-03T23:00:00Z", "0.2.0");
  EXPECT_NE(page.find("Generated 2026-12-03T23:00:00Z with mcp-ping-conformance 0.2.0."),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<th>case</th><th>transport</th><th class=\"client\">reference "
                      "0.1.0<span class=\"title\">2025-11-25, lenient<br>2026-11-29</span></th>"
                      "<th class=\"client\"><a href=\"my%20sdk/html/index.html\">&lt;My&gt; SDK "
                      "1.0</a>"),
            std::string::npos)
      << page;
  // ping/a has one row, ping/b one per transport it ran on.
  EXPECT_NE(page.find("<tr><th scope=\"row\" rowspan=\"1\"><code>ping/a</code>"),
            std::string::npos);
  EXPECT_NE(page.find("<td class=\"transport\">sse</td><td class=\"v-pass\">PASS</td><td "
                      "class=\"v-none\" title=\"not run\">not run</td></tr>"),
            std::string::npos);
  // No page written for the reference: its cell says the verdict, unlinked.
  EXPECT_NE(page.find("<td class=\"transport\">stdio</td><td class=\"v-pass\">PASS</td>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<td class=\"v-xfail\" title=\"[MUST] ping/b:pong"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"my%20sdk/html/cases/0/stdio/ping/b.html\">FAIL (baseline)</a> "
                      "<a class=\"tx\" href=\"my%20sdk/cases/stdio/ping/b/transcript.txt\">"
                      "transcript</a></td>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<tfoot><tr><th>total</th><td></td><td class=\"total\">2: 2 passed,"),
            std::string::npos);
  EXPECT_EQ(page.find("<My>"), std::string::npos);
}

}  // namespace
}  // namespace mcpping
