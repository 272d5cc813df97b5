#include "reports/markdown.hpp"

#include <gtest/gtest.h>

#include "test_runs.hpp"

namespace mcpping {
namespace {

using test::make_case;
using test::make_check;
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

// One collateral defect (a missing notifications/initialized) failing many cases is said once
// at the top; each case's own reason stays its subject's check.
TEST(SummaryMarkdown, SaysOnceWhenOneCollateralDefectExplainsManyFailures) {
  std::vector<CaseResult> cases;
  for (const char* id : {"ping/a", "ping/b", "ping/c"}) {
    auto handshake = make_check(std::string(id) + ":handshake", Verdict::Fail);
    handshake.collateral = true;
    handshake.actual = "no notifications/initialized";
    auto pong = make_check(std::string(id) + ":pong", Verdict::NonStrict, Level::Should);
    cases.push_back(make_case(id, {handshake, pong}));
  }
  const std::string md = render_summary_markdown(make_run(cases));
  EXPECT_NE(md.find("### Collateral defects"), std::string::npos) << md;
  EXPECT_NE(md.find("| `handshake` | MUST | 3 | no notifications/initialized |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| `ping/a` | stdio | FAIL | `ping/a:pong` [SHOULD]"), std::string::npos)
      << "a case's reason leads with its own subject\n"
      << md;
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

}  // namespace
}  // namespace mcpping
