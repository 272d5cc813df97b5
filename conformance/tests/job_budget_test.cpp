#include "conformance/job_budget.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

TEST(JobBudget, DefaultIsFourPerCoreAndAtLeastFour) {
  EXPECT_EQ(default_jobs(1), 4u);
  EXPECT_EQ(default_jobs(2), 8u);
  EXPECT_EQ(default_jobs(0), 4u);
}

TEST(JobBudget, CheapStartKeepsTheDefault) {
  EXPECT_EQ(jobs_for({0.01, 0.004}, 2, 30), 8u);  // a native client
  EXPECT_EQ(jobs_for({0.9, 0.75}, 2, 30), 8u);    // Node.js and an SDK
}

// Regression: a harness started with `npx tsx` (about 6 CPU-seconds before its first request)
// at four per core on 2 cores: 8 starts took 24 s of the 20 s case deadline.
TEST(JobBudget, CostlyStartRunsFewerAtOnce) {
  EXPECT_EQ(jobs_for({6.5, 6.0}, 2, 30), 2u);
  EXPECT_EQ(jobs_for({6.5, 6.0}, 2, 90), 7u);  // --timeout-multiplier 3
}

TEST(JobBudget, NeverFewerThanOne) { EXPECT_EQ(jobs_for({40, 40}, 2, 30), 1u); }

TEST(JobBudget, CpuTimeDecidesAndWallStandsInWithoutIt) {
  // A client that waits on the disk for 10 s uses little CPU: its starts do not contend.
  EXPECT_EQ(jobs_for({10, 0.2}, 2, 30), 8u);
  EXPECT_EQ(jobs_for({10, 0}, 2, 30), 1u);
}

TEST(JobBudget, DescribesTheChoice) {
  EXPECT_EQ(describe_jobs_choice({0.81, 0.75}, 8, "driver"),
            "driver start-up: 0.75 CPU-s (0.81 s wall): 8 cases at once");
  EXPECT_EQ(describe_jobs_choice({6, 6}, 1, "driver"),
            "driver start-up: 6.00 CPU-s (6.00 s wall): 1 case at once");
}

TEST(JobBudget, ReapedChildrenCpuNeverDecreases) {
  const double before = reaped_children_cpu_s();
  EXPECT_GE(before, 0);
  EXPECT_GE(reaped_children_cpu_s(), before);
}

}  // namespace
}  // namespace mcpping
