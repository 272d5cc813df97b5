#include "reports/html.hpp"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "test_runs.hpp"

namespace mcpping {
namespace {

namespace fs = std::filesystem;
using test::make_case;
using test::make_check;
using test::make_finding;
using test::make_run;

fs::path fresh_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / "mcp-ping-html-test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(HtmlReport, CasePagePathsStayInsideTheReportFolder) {
  EXPECT_EQ(html_case_page(1, "stdio", "ping/id/beyond-2^53"),
            fs::path("cases/1/stdio/ping/id/beyond-2_5e53.html"));
  EXPECT_EQ(html_case_page(0, "../..", "../x"), fs::path("cases/0/_2e_2e_2f_2e_2e/_2e_2e/x.html"));
  EXPECT_EQ(html_case_page(0, "", "a//b_c"), fs::path("cases/0/_/a/_/b_5fc.html"));
}

TEST(HtmlReport, ClientDataRendersAsText) {
  const auto dir = fresh_dir("escape");
  auto check = make_check("ping/idle:pong", Verdict::Fail);
  check.actual = "got <script>alert(1)</script>";
  check.spec[0].url = "javascript:alert(1)";
  auto result = make_case("ping/idle", {check});
  result.evidence_dir = dir / "evidence";
  fs::create_directories(result.evidence_dir);
  std::ofstream(result.evidence_dir / "transcript.txt")
      << "<- {\"x\":\"<script>alert(2)</script>\"}\n";
  write_html_report({{"<b>client</b>", make_run({result})}}, dir / "html");

  const std::string page = read_text(dir / "html" / html_case_page(0, "stdio", "ping/idle"));
  EXPECT_EQ(page.find("<script"), std::string::npos) << page;
  EXPECT_NE(page.find("got &lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(2)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(page.find("href=\"javascript:"), std::string::npos) << page;
  const std::string index = read_text(dir / "html" / "index.html");
  EXPECT_EQ(index.find("<b>client"), std::string::npos);
  EXPECT_NE(index.find("&lt;b&gt;client&lt;/b&gt;"), std::string::npos);
}

TEST(HtmlReport, MatrixColoursEachCellAndLinksItsPage) {
  const auto dir = fresh_dir("matrix");
  auto expected = make_case("ping/b", {make_check("ping/b:pong", Verdict::Fail)}, "sse");
  expected.expectation = CaseResult::Expectation::kExpectedFailure;
  auto stale =
      make_case("ping/id/beyond-2^53", {make_check("ping/id/beyond-2^53:pong", Verdict::Pass)});
  stale.expectation = CaseResult::Expectation::kStale;
  const std::vector<LabelledRun> runs = {
      {"reference",
       make_run({make_case("ping/b", {make_check("ping/b:pong", Verdict::Fail)}),
                 make_case("ping/b", {make_check("ping/b:pong", Verdict::NonStrict)}, "sse")})},
      {"other", make_run({expected, stale})}};
  write_html_report(runs, dir);
  const std::string index = read_text(dir / "index.html");
  EXPECT_NE(index.find("<th class=\"group\" colspan=\"2\">reference</th>"), std::string::npos)
      << index;
  EXPECT_NE(index.find("<td class=\"v-fail group\"><a href=\"cases/0/stdio/ping/b.html\""),
            std::string::npos)
      << index;
  EXPECT_NE(index.find("<td class=\"v-non-strict\"><a href=\"cases/0/sse/ping/b.html\""),
            std::string::npos);
  EXPECT_NE(index.find("class=\"v-xfail\"><a href=\"cases/1/sse/ping/b.html\""), std::string::npos);
  EXPECT_NE(index.find("cases/1/stdio/ping/id/beyond-2_5e53.html\" title=\"listed in the "
                       "baseline, but passed: \">STALE</a>"),
            std::string::npos);
  EXPECT_NE(index.find("<td class=\"v-none\" title=\"not run\">"), std::string::npos);
  for (const auto& page : {html_case_page(0, "stdio", "ping/b"), html_case_page(1, "sse", "ping/b"),
                           html_case_page(1, "stdio", "ping/id/beyond-2^53")}) {
    EXPECT_TRUE(fs::exists(dir / page)) << page;
  }
  const std::string deep = read_text(dir / html_case_page(1, "stdio", "ping/id/beyond-2^53"));
  EXPECT_NE(deep.find("<a href=\"../../../../../index.html\">"), std::string::npos);
}

TEST(HtmlReport, IndexNamesEachFindingOnceAndItsRootCause) {
  const auto dir = fresh_dir("collateral");
  std::vector<CaseResult> cases;
  for (const char* id : {"ping/a", "ping/b", "ping/c"})
    cases.push_back(
        make_case(id, {make_finding(id, "http:session-id", "POST without Mcp-Session-Id")}));
  write_html_report({{"client", make_run(cases)}}, dir);
  const std::string index = read_text(dir / "index.html");
  EXPECT_NE(index.find("FAIL [MUST] http:session-id (stdio), 3 cases \u2014 POST without "
                       "Mcp-Session-Id</li>"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find("<h2 id=\"root-causes\">"), std::string::npos) << index;
  write_html_report(
      {{"clean", make_run({make_case("ping/a", {make_check("ping/a:pong", Verdict::Fail)})})}},
      dir);
  EXPECT_EQ(read_text(dir / "index.html").find("<h2 id=\"findings\">"), std::string::npos);
}

TEST(HtmlReport, CasePageShowsChecksSpecTimingsAndTranscript) {
  const auto dir = fresh_dir("case");
  auto check = make_check("ping/idle:pong", Verdict::Pass);
  check.latency_ms = {0.25};
  auto second = make_check("ping/idle:second-pong", Verdict::Pass);
  second.latency_ms = {0.5};
  auto result = make_case("ping/idle", {check, second});
  result.description = "The server pings an idle client.";
  result.duration_ms = 812.5;
  result.evidence_dir = dir / "evidence";
  fs::create_directories(result.evidence_dir);
  std::ofstream(result.evidence_dir / "transcript.txt") << "0.000 -> ping\n0.250 <- pong\n";
  write_html_report({{"client", make_run({result})}}, dir / "html");
  const std::string page = read_text(dir / "html" / html_case_page(0, "stdio", "ping/idle"));
  EXPECT_NE(page.find("<p>The server pings an idle client.</p>"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"https://spec.example/ping\">\u201cThe receiver MUST respond "
                      "promptly with an empty response\u201d</a>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<td class=\"text\">pong within 2000 ms</td>"), std::string::npos);
  EXPECT_NE(page.find("812.50 ms"), std::string::npos);
  EXPECT_NE(page.find("p50 0.25 ms, p95 0.50 ms, max 0.50 ms"), std::string::npos);
  EXPECT_NE(page.find("0.000 -&gt; ping\n0.250 &lt;- pong\n</pre>"), std::string::npos);
  const std::string index = read_text(dir / "html" / "index.html");
  EXPECT_NE(index.find("<svg"), std::string::npos);
  EXPECT_NE(index.find(">0.50</text>"), std::string::npos) << index;
}

// The chart shows single pongs only; each burst is a row of the burst table, one group of
// columns per client, and its case page shows its figures apart.
TEST(HtmlReport, SinglePongChartAndBurstTableAreApart) {
  const auto dir = fresh_dir("burst");
  auto quick = test::latency_run();
  quick.cases[2].checks[0].burst = BurstFigures{3, 3, 20, 150};
  quick.cases.pop_back();  // no streamable-http burst
  write_html_report({{"reference", test::latency_run()}, {"quick", quick}}, dir);
  const std::string index = read_text(dir / "index.html");
  EXPECT_NE(index.find("<strong>stdio</strong>: single-pong latency (ms) over every case"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find(">0.40</text>"), std::string::npos) << index;  // stdio max
  EXPECT_NE(index.find(">1.50</text>"), std::string::npos) << index;  // streamable-http
  EXPECT_EQ(index.find(">50.00</text>"), std::string::npos) << "a burst pong in the chart";
  EXPECT_NE(index.find("<h2 id=\"burst\">Burst</h2>"), std::string::npos);
  EXPECT_NE(index.find("<th class=\"group\" colspan=\"3\">quick</th>"), std::string::npos) << index;
  EXPECT_NE(index.find("<tr><td><code>ping/burst</code></td><td>stdio</td><td class=\"num "
                       "group\">3/3</td><td class=\"num\">52.50</td><td class=\"num\">57</td>"
                       "<td class=\"num group\">3/3</td><td class=\"num\">20.00</td><td "
                       "class=\"num\">150</td></tr>"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find("<tr><td><code>ping/burst</code></td><td>streamable-http</td><td "
                       "class=\"num group\">2/3</td><td class=\"num\">80.00</td><td "
                       "class=\"num\">25</td><td class=\"num group\" colspan=\"3\">&ndash;</td>"
                       "</tr>"),
            std::string::npos)
      << index;
  const std::string page = read_text(dir / html_case_page(0, "stdio", "ping/burst"));
  EXPECT_EQ(page.find("single-pong latency"), std::string::npos) << page;
  EXPECT_NE(page.find("<tr><th>burst <code>pongs</code></th><td>3/3 pongs, the last 52.50 ms "
                      "after the first ping, 57 pongs/s; each pong p50 45.00 ms, p95 50.00 ms, "
                      "max 50.00 ms</td></tr>"),
            std::string::npos)
      << page;
}

TEST(HtmlReport, NoBurstSectionWithoutBursts) {
  const auto dir = fresh_dir("no-burst");
  write_html_report(
      {{"client", make_run({make_case("ping/a", {make_check("ping/a:pong", Verdict::Pass)})})}},
      dir);
  EXPECT_EQ(read_text(dir / "index.html").find("Burst"), std::string::npos);
}

TEST(HtmlReport, LongTranscriptsAreCutAtALineWithANote) {
  const auto dir = fresh_dir("long");
  auto result = make_case("ping/burst", {make_check("ping/burst:pong", Verdict::Pass)});
  result.evidence_dir = dir / "evidence";
  fs::create_directories(result.evidence_dir);
  {
    std::ofstream out(result.evidence_dir / "transcript.txt");
    const std::string line(99, 'x');
    for (int i = 0; i < 30000; ++i) out << line << "\n";  // 3 MB
  }
  write_html_report({{"client", make_run({result})}}, dir / "html");
  const std::string page = read_text(dir / "html" / html_case_page(0, "stdio", "ping/burst"));
  EXPECT_NE(page.find("The first 2 MiB of"), std::string::npos);
  EXPECT_LT(page.size(), 2u * 1024 * 1024 + 20000);
  EXPECT_NE(page.find("x\n</pre>"), std::string::npos);
}

TEST(HtmlReport, MissingTranscriptIsNoted) {
  const auto dir = fresh_dir("missing");
  auto result = make_case("ping/idle", {make_check("ping/idle:pong", Verdict::Pass)});
  result.evidence_dir = dir / "gone";
  write_html_report({{"client", make_run({result})}}, dir / "html");
  const std::string page = read_text(dir / "html" / html_case_page(0, "stdio", "ping/idle"));
  EXPECT_NE(page.find("No transcript at <code>"), std::string::npos);
}

TEST(HtmlReport, FailingCasePageOffersItsIssueFoldedPassingNone) {
  const auto dir = fresh_dir("issue");
  auto failing = make_case("ping/a", {make_check("ping/a:pong", Verdict::Fail)});
  failing.checks[0].actual = "nothing <within> 2000 ms";
  failing.transcript_excerpt = {"-> ping"};
  write_html_report(
      {{"client",
        make_run({failing, make_case("ping/b", {make_check("ping/b:pong", Verdict::Pass)})})}},
      dir);
  const std::string page = read_text(dir / html_case_page(0, "stdio", "ping/a"));
  const auto details = page.find("<details class=\"issue\" id=\"issue\"><summary>");
  ASSERT_NE(details, std::string::npos) << page;
  EXPECT_LT(details, page.find("<h2>Checks</h2>"));  // near the top, folded
  EXPECT_NE(page.find("<pre>title of ping/a (stdio): [MUST] nothing &lt;within&gt; 2000 ms</pre>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("```sh\nmcp-ping-conformance run --scenario ping/a --transport stdio"),
            std::string::npos);
  EXPECT_EQ(read_text(dir / html_case_page(0, "stdio", "ping/b")).find("<details"),
            std::string::npos);
}

}  // namespace
}  // namespace mcpping
