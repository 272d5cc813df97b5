#include "core/verdict.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

TEST(Verdict, NamesRoundTrip) {
  for (auto v : {Verdict::Pass, Verdict::Informational, Verdict::Unsupported, Verdict::NonStrict,
                 Verdict::Fail, Verdict::Error}) {
    EXPECT_EQ(parse_verdict(to_string(v)), v);
  }
  for (auto l : {Level::Must, Level::Should, Level::Info, Level::May})
    EXPECT_EQ(parse_level(to_string(l)), l);
  EXPECT_EQ(to_string(Level::May), "MAY");
  EXPECT_EQ(to_string(Verdict::NonStrict), "NON_STRICT");
  EXPECT_EQ(to_string(Level::Info), "INFO");
  EXPECT_FALSE(parse_verdict("pass"));
  EXPECT_FALSE(parse_level("MAYBE"));
}

TEST(Verdict, OutcomeNamesRoundTrip) {
  for (auto o : {Outcome::Met, Outcome::Degraded, Outcome::Broken, Outcome::NotReached})
    EXPECT_EQ(parse_outcome(to_string(o)), o);
  EXPECT_EQ(to_string(Outcome::NotReached), "not_reached");
  EXPECT_FALSE(parse_outcome("PASS"));
}

TEST(Verdict, WorstIsTheMoreSevere) {
  EXPECT_EQ(worst(Verdict::Pass, Verdict::NonStrict), Verdict::NonStrict);
  EXPECT_EQ(worst(Verdict::Fail, Verdict::Informational), Verdict::Fail);
  EXPECT_EQ(worst(Verdict::Error, Verdict::Fail), Verdict::Error);
  EXPECT_EQ(worst(Verdict::Unsupported, Verdict::Informational), Verdict::Unsupported);
}

}  // namespace
}  // namespace mcpping
