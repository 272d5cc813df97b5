#include "conformance/case_schedule.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

const TimeoutTable kTimeouts = {{"idle_window_ms", 2500}, {"quiet_ms", 300}, {"observe_ms", 4000}};

Scenario waiting_scenario(std::vector<std::string> fixed_waits, bool exclusive = false) {
  Scenario s;
  s.transports = {"stdio"};
  s.fixed_waits = std::move(fixed_waits);
  s.exclusive = exclusive;
  return s;
}

const Scenario kShort = waiting_scenario({});
const Scenario kQuiet = waiting_scenario({"quiet_ms"});
const Scenario kTwoQuiet = waiting_scenario({"quiet_ms", "quiet_ms"});
const Scenario kIdle = waiting_scenario({"idle_window_ms"});
const Scenario kObserve = waiting_scenario({"observe_ms"});
const Scenario kBurst = waiting_scenario({}, true);

std::vector<PlannedCase> plan(const std::vector<const Scenario*>& scenarios) {
  std::vector<PlannedCase> cases;
  for (const auto* s : scenarios) cases.push_back(PlannedCase{s, "stdio", std::nullopt});
  return cases;
}

TEST(CaseSchedule, FixedWaitsAddUpFromTheTimeoutTable) {
  EXPECT_EQ(kShort.fixed_wait_ms(kTimeouts), 0);
  EXPECT_EQ(kTwoQuiet.fixed_wait_ms(kTimeouts), 600);
  EXPECT_EQ(kIdle.fixed_wait_ms(kTimeouts), 2500);
}

TEST(CaseSchedule, SleepingCasesTakeNoJobSlotAndStartLongestFirst) {
  const auto cases = plan({&kShort, &kIdle, &kQuiet, &kObserve, &kTwoQuiet});
  const auto schedule = schedule_cases(cases, kTimeouts, 4);
  EXPECT_EQ(schedule.waiting, (std::vector<std::size_t>{3, 1}));
  EXPECT_EQ(schedule.waiting_slots, 2u);
  EXPECT_EQ(schedule.busy, (std::vector<std::size_t>{4, 2, 0}));
  EXPECT_TRUE(schedule.exclusive.empty());
}

TEST(CaseSchedule, ExclusiveCasesAreKeptApart) {
  const auto cases = plan({&kBurst, &kShort, &kBurst});
  const auto schedule = schedule_cases(cases, kTimeouts, 4);
  EXPECT_EQ(schedule.exclusive, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(schedule.busy, (std::vector<std::size_t>{1}));
}

TEST(CaseSchedule, EqualCasesKeepTheirPlanOrder) {
  const auto cases = plan({&kQuiet, &kShort, &kQuiet, &kShort});
  EXPECT_EQ(schedule_cases(cases, kTimeouts, 2).busy, (std::vector<std::size_t>{0, 2, 1, 3}));
}

TEST(CaseSchedule, UnsupportedCasesCostNothingAndGoLast) {
  auto cases = plan({&kIdle, &kShort});
  cases[0].unsupported = "revision 2025-03-26 only";
  const auto schedule = schedule_cases(cases, kTimeouts, 2);
  EXPECT_TRUE(schedule.waiting.empty());
  EXPECT_EQ(schedule.busy, (std::vector<std::size_t>{1, 0}));
}

TEST(CaseSchedule, OneJobRunsEverythingOneAfterTheOther) {
  const auto cases = plan({&kShort, &kIdle, &kQuiet});
  const auto schedule = schedule_cases(cases, kTimeouts, 1);
  EXPECT_TRUE(schedule.waiting.empty());
  EXPECT_EQ(schedule.busy, (std::vector<std::size_t>{1, 2, 0}));
}

TEST(CaseSchedule, SleepingCasesAtOnceAreBounded) {
  std::vector<const Scenario*> many(40, &kIdle);
  const auto schedule = schedule_cases(plan(many), kTimeouts, 2);
  EXPECT_EQ(schedule.waiting.size(), 40u);
  EXPECT_EQ(schedule.waiting_slots, 8u);
}

}  // namespace
}  // namespace mcpping
