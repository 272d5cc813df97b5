#include "case_clock.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace mcpping {
namespace {

using test::records_of;

// Before contact the script can last the start-up budget and then the case deadline.
TEST(CaseClock, BeforeContactTheCaseDeadlineFollowsTheStartupBudget) {
  Transcript transcript;
  CaseClock clock(1000, 5000, transcript);
  const auto start = Clock::now();
  clock.start(start);
  EXPECT_EQ(clock.startup_deadline(), start + from_ms(1000));
  EXPECT_EQ(clock.case_deadline(), start + from_ms(6000));
  EXPECT_FALSE(clock.first_contact());
}

// The case deadline runs from the client's first contact, once: a later one moves nothing.
TEST(CaseClock, TheCaseDeadlineRunsFromFirstContactOnly) {
  Transcript transcript;
  CaseClock clock(1000, 5000, transcript);
  const auto start = Clock::now();
  clock.start(start);
  const auto contact = start + from_ms(200);
  clock.contact(contact);
  clock.contact(contact + from_ms(300));
  ASSERT_TRUE(clock.first_contact());
  EXPECT_EQ(*clock.first_contact(), contact);
  EXPECT_EQ(clock.case_deadline(), contact + from_ms(5000));
  const auto events = records_of(transcript.records(), "event");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].contains("first_contact"));
}

// A client that never starts: the exceeded budget is recorded once, with its size.
TEST(CaseClock, AnExceededStartupBudgetIsRecordedOnce) {
  Transcript transcript;
  CaseClock clock(1000, 5000, transcript);
  clock.start(Clock::now());
  EXPECT_FALSE(clock.startup_exceeded());
  clock.exceed_startup();
  clock.exceed_startup();
  EXPECT_TRUE(clock.startup_exceeded());
  const auto events = records_of(transcript.records(), "event");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["startup_exceeded"], 1000.0);
}

TEST(CaseClock, MillisecondHelpersRoundTrip) {
  const auto from = Clock::now();
  EXPECT_DOUBLE_EQ(round3(elapsed_ms(from, from + from_ms(12.5))), 12.5);
  EXPECT_DOUBLE_EQ(round3(1.23456), 1.235);
}

}  // namespace
}  // namespace mcpping
