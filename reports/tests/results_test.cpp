#include "reports/results.hpp"

#include <gtest/gtest.h>

#include "test_runs.hpp"

namespace mcpping {
namespace {

using test::make_case;
using test::make_check;
using test::make_run;

// Three cases whose subject check failed with these Actuals.
RunResult failed_with(const std::vector<std::string>& actuals) {
  std::vector<CaseResult> cases;
  for (std::size_t i = 0; i < actuals.size(); ++i) {
    const std::string id = "ping/case-" + std::to_string(i);
    auto pong = make_check(id + ":pong", Verdict::Fail);
    pong.actual = actuals[i];
    cases.push_back(make_case(id, {pong}));
  }
  return make_run(cases);
}

TEST(RootCauses, ThreeCasesFailingTheSameWayAreOneCause) {
  const auto causes =
      root_causes(failed_with({"no pong to id 1 within 2000 ms", "no pong to id 27 within 2100 ms",
                               "no pong to id 301 within 1900 ms"}));
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].check, "pong");
  EXPECT_EQ(causes[0].cases.size(), 3u);
}

TEST(RootCauses, DifferentFailuresAreNotOneCause) {
  EXPECT_TRUE(root_causes(failed_with({"no pong to id 1 within 2000 ms",
                                       "the pong carried an error (-32601)",
                                       "the pong echoed id \"7\" as a string"}))
                  .empty());
}

// The Actual was cut to 60 bytes before quoted values were reduced, so a long quoted id
// early on moved the cut: the same failure with ids of different lengths made three causes
// of one (each below the threshold, so none was shown).
TEST(RootCauses, RegressionQuotedValuesOfDifferentLengthsSplitOneCause) {
  const auto causes = root_causes(failed_with(
      {"the pong to id \"a\" came back as a result of the call: the caller got the pong",
       "the pong to id \"a-much-longer-id-of-forty-characters-ok\" came back as a result of "
       "the call: the caller got the pong",
       "the pong to id \"mid-length-id\" came back as a result of the call: the caller got "
       "the pong"}));
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].cases.size(), 3u);
}

}  // namespace
}  // namespace mcpping
