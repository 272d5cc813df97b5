#include "engine/run.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace mcpping {
namespace {

ClientMessage initialized_in(const std::string& session) {
  ClientMessage m;
  m.json = Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  m.at = Clock::now();
  if (!session.empty()) m.meta = Json{{"session", session}};
  return m;
}

// A second session's notifications/initialized (after a 404 ended the first) is that
// session's: it must not meet the first handshake's check, still waiting for its own.
TEST(RunState, AnotherSessionsInitializedDoesNotSettleTheOwedHandshake) {
  test::FakeChannel channel;
  Transcript transcript;
  mcpping::Run run(test::make_resolved(Json::array({Json{{"handshake", Json::object()}}})), channel,
                   transcript);
  run.owed_initialized =
      OwedInitialized{"initialize", "the client went on", Clock::now(), 0, "mcp-session-1-1"};
  EXPECT_FALSE(run.take_owed_initialized(initialized_in("mcp-session-2-1")));
  EXPECT_TRUE(run.owed_initialized.has_value());
  EXPECT_TRUE(run.take_owed_initialized(initialized_in("mcp-session-1-1")));
  EXPECT_FALSE(run.owed_initialized.has_value());
}

// stdio has one connection: any notifications/initialized is the one owed.
TEST(RunState, OnStdioAnyInitializedSettlesTheOwedHandshake) {
  test::FakeChannel channel;
  Transcript transcript;
  mcpping::Run run(test::make_resolved(Json::array({Json{{"handshake", Json::object()}}})), channel,
                   transcript);
  run.owed_initialized = OwedInitialized{"initialize", "the client went on", Clock::now(), 0, ""};
  EXPECT_TRUE(run.take_owed_initialized(initialized_in("")));
}

}  // namespace
}  // namespace mcpping
