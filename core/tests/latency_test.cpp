#include "core/latency.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

TEST(Latency, NoValuesGiveZeros) {
  const auto s = summarize_latencies({});
  EXPECT_EQ(s.p50, 0);
  EXPECT_EQ(s.max, 0);
}

TEST(Latency, NearestRankPercentiles) {
  std::vector<double> values;
  for (int i = 100; i >= 1; --i) values.push_back(i);
  const auto s = summarize_latencies(values);
  EXPECT_EQ(s.p50, 50);
  EXPECT_EQ(s.p95, 95);
  EXPECT_EQ(s.max, 100);
}

TEST(Latency, OneValueIsEveryPercentile) {
  const auto s = summarize_latencies({7.5});
  EXPECT_EQ(s.p50, 7.5);
  EXPECT_EQ(s.p95, 7.5);
  EXPECT_EQ(s.max, 7.5);
}

}  // namespace
}  // namespace mcpping
