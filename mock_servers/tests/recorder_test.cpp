#include "recorder.hpp"

#include <gtest/gtest.h>

#include "client_inbox.hpp"
#include "core/check_registry.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

using test::records_of;

ClientMessage initialized_in(const std::string& session) {
  ClientMessage m;
  m.json = Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  m.at = Clock::now();
  if (!session.empty()) m.meta = Json{{"session", session}};
  return m;
}

// A script of three steps, for the attribution of records only.
class RecorderTest : public ::testing::Test {
 protected:
  Transcript transcript;
  ScriptCursor script{std::vector<const Step*>(3)};
  Recorder recorder{transcript, script};
};

// A second session's notifications/initialized (after a 404 ended the first) is that
// session's: it must not meet the first handshake's check, still waiting for its own.
TEST_F(RecorderTest, AnotherSessionsInitializedDoesNotSettleTheOwedHandshake) {
  recorder.owe_initialized(
      OwedInitialized{"initialize", "the client went on", Clock::now(), 0, "mcp-session-1-1"});
  EXPECT_FALSE(recorder.take_owed_initialized(initialized_in("mcp-session-2-1")));
  EXPECT_TRUE(recorder.owes_initialized());
  EXPECT_TRUE(recorder.take_owed_initialized(initialized_in("mcp-session-1-1")));
  EXPECT_FALSE(recorder.owes_initialized());
  const auto checks = records_of(transcript.records(), "check");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0]["outcome"], "met");
}

// stdio has one connection: any notifications/initialized is the one owed.
TEST_F(RecorderTest, OnStdioAnyInitializedSettlesTheOwedHandshake) {
  recorder.owe_initialized(
      OwedInitialized{"initialize", "the client went on", Clock::now(), 0, ""});
  EXPECT_TRUE(recorder.take_owed_initialized(initialized_in("")));
}

// Still owed at the end of the run: the handshake is broken, at its own step.
TEST_F(RecorderTest, AnInitializedNeverSentIsRecordedBrokenWhenSettled) {
  recorder.owe_initialized(
      OwedInitialized{"initialize", "the client went on", Clock::now(), 0, ""});
  script.move_to(2);
  recorder.settle_deferred();
  const auto checks = records_of(transcript.records(), "check");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0]["outcome"], "broken");
  EXPECT_EQ(checks[0]["step"], 0);
  EXPECT_FALSE(recorder.owes_initialized());
}

// A deferred check is recorded at the end, attributed to the step that deferred it.
TEST_F(RecorderTest, ADeferredCheckIsAttributedToTheStepThatDeferredIt) {
  script.move_to(1);
  recorder.defer(
      [&] { recorder.record(builtin_check("handshake"), Outcome::Met, "expected", "actual"); });
  script.move_to(3);  // the script is over
  EXPECT_TRUE(records_of(transcript.records(), "check").empty());
  recorder.settle_deferred();
  const auto checks = records_of(transcript.records(), "check");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0]["step"], 1);
  EXPECT_EQ(script.index(), 3u);
}

// The mock server's own check: always broken, marked implicit, no step after the script.
TEST_F(RecorderTest, AnImplicitCheckIsBrokenAndMarked) {
  script.move_to(3);
  recorder.record_implicit(builtin_check("transport:line-too-long"), "short lines", "a long one");
  const auto checks = records_of(transcript.records(), "check");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0]["outcome"], "broken");
  EXPECT_EQ(checks[0]["implicit"], true);
  EXPECT_FALSE(checks[0].contains("step"));
}

}  // namespace
}  // namespace mcpping
