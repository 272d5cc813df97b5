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

// Regression: a client of 3 CPU-seconds a start, measured while other work used 1.8 of the 2
// cores, was given four cases at once; their starts needed a minute of the 0.2 core left, and
// each case failed driver:started at the 30 s budget.
TEST(JobBudget, RegressionFourCostlyStartsOnAMachineBusyElsewhereMissedTheBudget) {
  const StartupCost starved{15.5, 3.06, 28.0};
  EXPECT_NEAR(free_cores(starved, 2), 0.2, 0.01);
  EXPECT_EQ(jobs_for(starved, 2, 30), 1u);
}

TEST(JobBudget, CoresUsedElsewhereAreNotFree) {
  EXPECT_DOUBLE_EQ(free_cores({6.0, 6.0, 6.0}, 2), 1.0);  // a busy loop beside
  EXPECT_EQ(jobs_for({6.0, 6.0, 6.0}, 2, 30), 1u);
  EXPECT_EQ(jobs_for({3.0, 3.0, 3.0}, 2, 30), 2u);
  EXPECT_DOUBLE_EQ(free_cores({1.0, 0.1, 5.0}, 2), 0.1);  // busier than the cores: what it got
}

TEST(JobBudget, LoadThatYieldsToTheClientLeavesItsCores) {
  // The rest of the machine used both cores, yet the client got one of them at once.
  EXPECT_DOUBLE_EQ(free_cores({2.0, 2.0, 4.0}, 2), 1.0);
  EXPECT_DOUBLE_EQ(free_cores({0.5, 0.2, 0.0}, 2), 2.0);  // an idle machine: all of them
  EXPECT_DOUBLE_EQ(free_cores({0.0, 0.0, 0.0}, 2), 2.0);  // nothing measured
}

// Regression: the reference client's pre-check (5 ms) read one 10 ms tick of other work as
// a whole core taken: "1.0 of 2 cores free" on an idle machine.
TEST(JobBudget, RegressionAStartOfMillisecondsReadATickAsACoreTaken) {
  EXPECT_DOUBLE_EQ(free_cores({0.005, 0.004, 0.01}, 2), 2.0);
  EXPECT_LT(free_cores({0.5, 0.1, 0.75}, 2), 1.0);  // from half a second on, it counts
}

TEST(JobBudget, DescribesTheChoice) {
  EXPECT_EQ(describe_jobs_choice({0.81, 0.75}, 2, 8, "driver"),
            "driver start-up: 0.75 CPU-s (0.81 s wall), 2.0 of 2 cores free: 8 cases at once");
  EXPECT_EQ(describe_jobs_choice({6, 6, 6}, 2, 1, "driver"),
            "driver start-up: 6.00 CPU-s (6.00 s wall), 1.0 of 2 cores free: 1 case at once");
}

TEST(JobBudget, MachineCpuIsReadAndNeverDecreases) {
  const double before = machine_cpu_s();
  EXPECT_GT(before, 0);  // /proc/stat: the suite runs on Linux
  EXPECT_GE(machine_cpu_s(), before);
}

TEST(JobBudget, ReapedChildrenCpuNeverDecreases) {
  const double before = reaped_children_cpu_s();
  EXPECT_GE(before, 0);
  EXPECT_GE(reaped_children_cpu_s(), before);
}

}  // namespace
}  // namespace mcpping
