#include "conversation.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace mcpping {
namespace {

class ConversationTest : public ::testing::Test {
 protected:
  const Json resolved = test::make_resolved(Json::array({Json{{"pause", "quiet_ms"}}}));
  const ParsedScript script = parse_resolved_script(resolved, "test");
  test::FakeChannel channel;
  Transcript transcript;
  Conversation conv{resolved, script, channel, transcript};
};

// "post:NAME" routes to the POST that carried the captured request, by its id.
TEST_F(ConversationTest, APostRouteNamesTheCapturedRequestsId) {
  conv.script().captures()["call"] = Json{{"id", 7}};
  EXPECT_EQ(conv.route_of("get"), "get");
  EXPECT_EQ(conv.route_of("post:call"), "post:7");
  EXPECT_EQ(conv.route_of("post:missing"), std::nullopt);
  EXPECT_EQ(conv.stop_reason(), "bad route");
}

// The case deadline and an interruption abort the run; any other failed wait stops the
// script with the step's reason.
TEST_F(ConversationTest, AFailedWaitAbortsOnlyForTheDeadlineOrAnInterruption) {
  EXPECT_EQ(conv.after_wait(Pump::Deadline, "no pong"), StepResult::Failed);
  EXPECT_EQ(conv.stop_reason(), "no pong");
  EXPECT_EQ(conv.after_wait(Pump::Interrupted), StepResult::Abort);
  EXPECT_EQ(conv.abort_reason(), Pump::Interrupted);
  EXPECT_EQ(conv.go_on(Pump::Deadline), StepResult::Ok);
  EXPECT_EQ(conv.go_on(Pump::CaseDeadline), StepResult::Abort);
}

// Frames sent through the conversation carry the count of client requests so far.
TEST_F(ConversationTest, SentFramesAreKeptWithTheClientRequestsBefore) {
  ASSERT_TRUE(conv.send_one(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}));
  ASSERT_EQ(conv.sender().all_sent().size(), 1u);
  EXPECT_EQ(conv.sender().all_sent()[0].requests_before, 0u);
  EXPECT_EQ(channel.sent.size(), 1u);
}

}  // namespace
}  // namespace mcpping
