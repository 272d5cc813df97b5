#include "reports/markdown.hpp"

#include <gtest/gtest.h>

#include "test_runs.hpp"

namespace mcpping {
namespace {

using test::make_case;
using test::make_check;
using test::make_finding;
using test::make_run;

TEST(ClosingLine, CountsEveryKind) {
  auto expected = make_case("ping/a", {make_check("ping/a:pong", Verdict::Fail)});
  expected.expectation = CaseResult::Expectation::kExpectedFailure;
  const auto run =
      make_run({make_case("ping/b", {make_check("ping/b:pong", Verdict::Pass)}),
                make_case("ping/c", {make_check("ping/c:pong", Verdict::Fail)}), expected});
  EXPECT_EQ(closing_line(run),
            "Total 3: 1 passed, 1 failed, 1 expected failures, 0 unsupported, 0 informational, "
            "0 errors");
  // Findings fail the run by their own level: the line says so, as a run may fail with no
  // case failing.
  auto with_finding = run;
  with_finding.cases.push_back(
      make_case("ping/d", {make_finding("ping/d", "http:session-id", "POST without it")}));
  with_finding.findings = collect_findings(with_finding.cases);
  EXPECT_NE(closing_line(with_finding).find("; 1 finding, 1 failing the run"), std::string::npos)
      << closing_line(with_finding);
}

TEST(SummaryMarkdown, ListsFailuresWithReasonAndSpecLinkAndLatency) {
  auto pong = make_check("ping/b:pong", Verdict::Pass);
  pong.latency_ms = {0.25};
  auto stale = make_case("ping/s", {make_check("ping/s:pong", Verdict::Pass)});
  stale.expectation = CaseResult::Expectation::kStale;
  stale.expectation_reason = "was broken in 1.2";
  auto run = make_run({make_case("ping/b", {pong}),
                       make_case("ping/c", {make_check("ping/c:pong", Verdict::Fail)}), stale});
  run.unknown_baseline_entries = {"ping/typo"};
  const std::string md = render_summary_markdown(run);
  EXPECT_NE(md.find("| `ping/c` | stdio | FAIL | `ping/c:pong` [MUST]: nothing within 2000 ms "
                    "([spec](https://spec.example/ping)) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `ping/s` | stdio | stale baseline entry | listed in the baseline, but "
                    "passed: was broken in 1.2 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- `ping/typo`"), std::string::npos);
  EXPECT_NE(md.find("| `ping/b` | stdio | 1 | 0.25 | 0.25 | 0.25 |"), std::string::npos) << md;
}

// One finding (a missing notifications/initialized) in many cases is said once at the top, as
// a root cause; each case's own reason stays its subject's check.
TEST(SummaryMarkdown, RegressionOneCauseFortyCasesAndNoLineThatNamesIt) {
  std::vector<CaseResult> cases;
  for (const char* id : {"ping/a", "ping/b", "ping/c"}) {
    const auto handshake = make_finding(id, "handshake", "no notifications/initialized");
    auto pong = make_check(std::string(id) + ":pong", Verdict::NonStrict, Level::Should);
    cases.push_back(make_case(id, {handshake, pong}));
  }
  // Strict, so the NON_STRICT cases are listed as failing.
  const std::string md = render_summary_markdown(make_run(cases, /*strict=*/true));
  EXPECT_NE(md.find("### Root causes"), std::string::npos) << md;
  EXPECT_NE(md.find("| 3 | stdio | `handshake` (finding) | FAIL | no notifications/initialized |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `handshake` | stdio | MUST | FAIL | 3 | no notifications/initialized |"),
            std::string::npos)
      << md;
  // The same subject check failing the same way in three cases is one cause too.
  EXPECT_NE(md.find("| 3 | stdio | `pong` | NON_STRICT |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `ping/a` | stdio | NON_STRICT | `ping/a:pong` [SHOULD]"), std::string::npos)
      << "a case's verdict and reason are its own subject's, not the finding's\n"
      << md;
}

// Single pongs per transport, then each burst: a burst's queued pongs never reach the
// single-pong table.
TEST(SummaryMarkdown, SinglePongLatencyAndBurstsInSeparateTables) {
  const std::string md = render_summary_markdown(test::latency_run());
  EXPECT_NE(md.find("### Single-pong latency (ms)\n\nOne ping at a time, from the ping written to "
                    "its pong received; the pongs of bursts are not counted here.\n\n| transport | "
                    "pongs | p50 | p95 | max "
                    "|\n|---|---|---|---|---|\n| stdio | 2 | 0.20 | 0.40 | 0.40 |\n"
                    "| streamable-http | 1 | 1.50 | 1.50 | 1.50 |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `ping/a` | streamable-http | 1 | 1.50 | 1.50 | 1.50 |"), std::string::npos)
      << md;
  EXPECT_EQ(md.find("| `ping/burst` | stdio | 3 |"), std::string::npos) << md;
  EXPECT_NE(md.find("### Burst\n\nSeveral pings written at once, timed from the first ping "
                    "written to the last pong received.\n\n| case | transport | pongs | time to "
                    "last pong (ms) | pongs/s |\n|---|---|---|---|---|\n"
                    "| `ping/burst` | stdio | 3/3 | 52.50 | 57 |\n"
                    "| `ping/burst` | streamable-http | 2/3 | 80.00 | 25 |\n"),
            std::string::npos)
      << md;
}

TEST(SummaryMarkdown, SaysOnceWhetherSchemaValidationWasOn) {
  auto run = make_run({make_case("ping/a", {make_check("ping/a:pong", Verdict::Pass)})});
  EXPECT_NE(render_summary_markdown(run).find("schema validation off: no --schemas DIR"),
            std::string::npos);
  run.info.schemas = "/spec/schema";
  EXPECT_NE(render_summary_markdown(run).find(
                "schema validation on: every client message checked against /spec/schema/"),
            std::string::npos);
}

TEST(SummaryMarkdown, NoLatencySectionsWithoutPongs) {
  const std::string md = render_summary_markdown(
      make_run({make_case("ping/c", {make_check("ping/c:pong", Verdict::Fail)})}));
  EXPECT_EQ(md.find("latency"), std::string::npos) << md;
  EXPECT_EQ(md.find("Burst"), std::string::npos) << md;
}

TEST(LatencyLines, SinglePongsPerTransportThenEachBurst) {
  EXPECT_EQ(latency_lines(test::latency_run()),
            (std::vector<std::string>{
                "single-pong latency, stdio: p50 0.20 ms, p95 0.40 ms, max 0.40 ms (2 pongs)",
                "single-pong latency, streamable-http: p50 1.50 ms, p95 1.50 ms, max 1.50 ms (1 "
                "pong)",
                "burst ping/burst, stdio: 3/3 pongs, the last 52.50 ms after the first ping, 57 "
                "pongs/s",
                "burst ping/burst, streamable-http: 2/3 pongs, the last 80.00 ms after the first "
                "ping, 25 pongs/s"}));
}

TEST(SummaryMarkdown, NoCollateralSectionWithoutCollateralFailures) {
  const auto run = make_run({make_case("ping/c", {make_check("ping/c:pong", Verdict::Fail)})});
  EXPECT_EQ(render_summary_markdown(run).find("Collateral"), std::string::npos);
}

TEST(SummaryMarkdown, EscapesTableCells) {
  auto check = make_check("ping/c:pong", Verdict::Fail);
  check.actual = "a | b\nc";
  const std::string md = render_summary_markdown(make_run({make_case("ping/c", {check})}));
  EXPECT_NE(md.find("a \\| b c"), std::string::npos) << md;
}

// Many failing cases: each issue folded under its case, the first kIssueReportsInSummary only,
// so the summary stays a page of tables.
TEST(SummaryMarkdown, FoldsAnIssuePerFailingCaseAndCapsThem) {
  std::vector<CaseResult> cases;
  for (std::size_t i = 0; i < kIssueReportsInSummary + 3; ++i) {
    const std::string id = "ping/c" + std::to_string(100 + i);
    cases.push_back(make_case(id, {make_check(id + ":pong", Verdict::Fail)}));
  }
  cases.push_back(make_case("ping/ok", {make_check("ping/ok:pong", Verdict::Pass)}));
  const std::string md = render_summary_markdown(make_run(cases));
  const auto section = md.find("\n### Issue reports\n");
  ASSERT_NE(section, std::string::npos) << md;
  EXPECT_NE(md.find("<details><summary><code>ping/c100</code> (stdio), FAIL</summary>\n\n"
                    "**Title:** title of ping/c100 (stdio): [MUST] nothing within 2000 ms\n\n"
                    "````markdown\nThe client fails"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("<code>ping/c119</code>"), std::string::npos);
  EXPECT_EQ(md.find("<code>ping/c120</code>"), std::string::npos);
  EXPECT_NE(md.find("\n3 more: each failing case's page in `html/cases/` offers its issue text."),
            std::string::npos);
  EXPECT_EQ(md.find("ping/ok</code>"), std::string::npos);
  EXPECT_EQ(render_summary_markdown(make_run({cases.back()})).find("### Issue reports"),
            std::string::npos);
}

}  // namespace
}  // namespace mcpping
