#include "timer_lateness.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

using std::chrono::milliseconds;

TEST(TimerLateness, WorstWakeUpInsideTheWindow) {
  TimerLateness timers;
  const auto t0 = Clock::now() + std::chrono::hours(1);  // clear of the sampler's own slots
  timers.note(t0, 3);
  timers.note(t0 + milliseconds(500), 240);
  timers.note(t0 + milliseconds(1500), 12);
  EXPECT_EQ(timers.worst_ms(t0, t0 + milliseconds(2000)), 240);
  EXPECT_EQ(timers.worst_ms(t0 + milliseconds(1000), t0 + milliseconds(2000)), 12);
  EXPECT_EQ(timers.worst_ms(t0 + milliseconds(3000), t0 + milliseconds(4000)), 0);
}

TEST(TimerLateness, OneSlotKeepsItsWorst) {
  TimerLateness timers;
  const auto t0 = Clock::now() + std::chrono::hours(1);
  timers.note(t0, 80);
  timers.note(t0 + milliseconds(20), 5);
  EXPECT_EQ(timers.worst_ms(t0, t0), 80);
}

}  // namespace
}  // namespace mcpping
