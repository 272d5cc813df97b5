#include "http_sessions.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

// Sessions are kept by id, and ids compare as text: "mcp-session-10-..." sorts before
// "mcp-session-2-...". The newest listening stream must be the newest session's, whatever
// the ids, so idle pings go to the stream the client opened last.
TEST(HttpSessions, LatestGetStreamIsTheNewestSessionsPastTheTenth) {
  HttpSessions sessions;
  std::vector<std::string> ids;
  for (int i = 0; i < 10; ++i) ids.push_back(sessions.create());
  const auto second = std::make_shared<SseStream>("get");
  sessions.at(ids[1]).stream = second;
  const auto tenth = std::make_shared<SseStream>("get");
  sessions.at(ids[9]).stream = tenth;
  ASSERT_LT(ids[9], ids[1]);  // the text order this test is about
  EXPECT_EQ(sessions.latest_get_stream(), tenth);
  // A session the server ended no longer counts.
  sessions.end(ids[9], "ended by the test");
  EXPECT_EQ(sessions.latest_get_stream(), second);
}

httplib::Request request(const std::string& method, const std::string& session = "") {
  httplib::Request req;
  req.method = method;
  req.path = "/mcp";
  if (!session.empty()) req.headers.emplace("Mcp-Session-Id", session);
  return req;
}

std::vector<HttpRuleId> rules_of(const SessionCheck& check) {
  std::vector<HttpRuleId> ids;
  for (const auto& broken : check.broken) ids.push_back(broken.rule);
  return ids;
}

// A client may open its GET stream together with initialize; that GET can arrive just after
// the server created the session, before the client could know its id. It is the early
// probe a GET before the session is (INFO), not a missing session header (MUST): found with
// a client whose verdicts changed with the arrival order of two of its requests.
TEST(HttpSessions, RegressionGetRacingTheInitializeResponseIsNotASessionIdBreak) {
  HttpSessions sessions;
  const auto id = sessions.create();
  const auto early = sessions.check(request("GET"));
  EXPECT_EQ(early.session, id);  // attached to the session, as a lenient server does
  EXPECT_EQ(rules_of(early), std::vector<HttpRuleId>{HttpRuleId::GetBeforeSessionId});
}

TEST(HttpSessions, AGetWithoutTheIdAfterTheClientWentOnBreaksTheSessionRule) {
  HttpSessions sessions;
  const auto id = sessions.create();
  EXPECT_TRUE(sessions.check(request("POST", id)).broken.empty());  // notifications/initialized
  EXPECT_EQ(rules_of(sessions.check(request("GET"))),
            std::vector<HttpRuleId>{HttpRuleId::NoSessionHeader});
}

// A client that never sends the header at all is caught on its first POST after initialize.
TEST(HttpSessions, APostWithoutTheIdBreaksTheSessionRuleAtOnce) {
  HttpSessions sessions;
  sessions.create();
  EXPECT_EQ(rules_of(sessions.check(request("POST"))),
            std::vector<HttpRuleId>{HttpRuleId::NoSessionHeader});
  EXPECT_EQ(rules_of(sessions.check(request("GET"))),
            std::vector<HttpRuleId>{HttpRuleId::NoSessionHeader});
}

}  // namespace
}  // namespace mcpping
