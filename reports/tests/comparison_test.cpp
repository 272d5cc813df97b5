#include "reports/comparison.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mcpping
