#include "conformance/judge.hpp"

#include <gtest/gtest.h>

#include <array>
#include <tuple>

namespace mcpping {
namespace {

constexpr auto P = Verdict::Pass;
constexpr auto I = Verdict::Informational;
constexpr auto N = Verdict::NonStrict;
constexpr auto F = Verdict::Fail;

// Every level × every outcome, as docs/verdicts.md states it.
TEST(Judge, TableCoversEveryLevelAndOutcome) {
  const Outcome outcomes[] = {Outcome::Met, Outcome::Degraded, Outcome::Broken,
                              Outcome::NotReached};
  const std::tuple<Level, std::array<Verdict, 4>> table[] = {
      {Level::Must, {P, N, F, F}},
      {Level::Should, {P, N, N, N}},
      {Level::May, {P, I, I, I}},
      {Level::Info, {I, I, I, I}},
  };
  for (const auto& [level, verdicts] : table) {
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(judge(level, outcomes[i]), verdicts[i])
          << to_string(level) << " x " << to_string(outcomes[i]);
    }
  }
}

TEST(Judge, NoOutcomeIsAnErrorOrUnsupported) {
  // ERROR and UNSUPPORTED are facts about the run, never about a check.
  for (auto level : {Level::Must, Level::Should, Level::May, Level::Info}) {
    for (auto outcome : {Outcome::Met, Outcome::Degraded, Outcome::Broken, Outcome::NotReached}) {
      const auto v = judge(level, outcome);
      EXPECT_NE(v, Verdict::Error);
      EXPECT_NE(v, Verdict::Unsupported);
    }
  }
}

}  // namespace
}  // namespace mcpping
