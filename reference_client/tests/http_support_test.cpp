#include "http_support.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace mcp::detail {
namespace {

using nlohmann::json;

TEST(HttpSupport, EventDataIsParsedAsJson) {
  test::LogCapture log;
  const auto frame =
      parse_event_data("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", log.logger());
  ASSERT_TRUE(frame);
  EXPECT_EQ((*frame)["method"], "ping");
}

TEST(HttpSupport, EmptyEventDataIsSkippedSilently) {
  test::LogCapture log;
  EXPECT_FALSE(parse_event_data("", log.logger()));
  EXPECT_FALSE(parse_event_data(" \n", log.logger()));
  EXPECT_FALSE(log.contains(""));  // nothing was logged
}

TEST(HttpSupport, EventDataThatIsNotJsonIsSkippedAndLogged) {
  test::LogCapture log;
  EXPECT_FALSE(parse_event_data("{not json", log.logger()));
  EXPECT_TRUE(log.contains("not JSON: {not json"));
}

TEST(HttpSupport, DescribesMessagesForLogs) {
  EXPECT_EQ(describe({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}}),
            "request 'tools/call' id 3");
  EXPECT_EQ(describe({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}),
            "notification 'notifications/initialized'");
  EXPECT_EQ(describe({{"jsonrpc", "2.0"}, {"id", "p"}, {"result", json::object()}}),
            "response to id \"p\"");
}

TEST(HttpSupport, BaseHeadersCarryTheUsersHeadersAndTimeoutsFollowTheOptions) {
  HttpOptions options;
  options.headers = {{"Authorization", "Bearer t"}};
  options.stream_idle_timeout = std::chrono::milliseconds(1234);
  options.post_timeout = std::chrono::milliseconds(55);
  const httplib::Headers headers = base_headers(options);
  ASSERT_EQ(headers.count("authorization"), 1u);
  EXPECT_EQ(headers.find("Authorization")->second, "Bearer t");
  EXPECT_EQ(stream_timeouts(options).read.count(), 1234);
  EXPECT_EQ(post_timeouts(options).read.count(), 55);
}

TEST(HttpSupport, ExcerptsLongText) {
  EXPECT_EQ(excerpt("short"), "short");
  const std::string long_text(300, 'x');
  EXPECT_EQ(excerpt(long_text), std::string(200, 'x') + "... (300 bytes)");
}

}  // namespace
}  // namespace mcp::detail
