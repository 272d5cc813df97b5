#include "http/http_sessions.hpp"

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

}  // namespace
}  // namespace mcpping
