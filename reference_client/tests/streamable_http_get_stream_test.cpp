// The Streamable HTTP transport's streams beyond one POST: the GET (listening) stream, and a
// broken stream resumed with Last-Event-ID.
#include "mcp/streamable_http_transport.hpp"

#include "streamable_http_fixture.hpp"

#include <gtest/gtest.h>

namespace mcp {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::is_get;
using test::ping;
using test::Received;
using test::response;
using test::sse_event;
using test::SseChannel;
using test::StreamableHttpTest;

TEST_F(StreamableHttpTest, APingOnTheGetStreamIsAnswered) {
  auto client = make_client();
  client->connect();
  auto stream = server.wait_get_stream();
  ASSERT_TRUE(stream);
  stream->push(sse_event(ping(42), ": keep-alive\r\n\r\n"));
  const auto pong = server.wait_for([](const Received& r) { return r.is_response_to(42); });
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->header("Mcp-Session-Id"), "session-1");
  EXPECT_EQ(pong->header("MCP-Protocol-Version"), "2025-11-25");
}

TEST_F(StreamableHttpTest, AUserPingHandlerReplacesThePongAndTheGetStreamStillOpens) {
  auto client = make_client();
  std::atomic<int> handled = 0;
  client->set_request_handler("ping", [&](const json&) {
    ++handled;
    return json{{"answered_by", "user"}};
  });
  client->connect();
  auto stream = server.wait_get_stream();
  ASSERT_TRUE(stream);  // the handler did not change whether the GET stream opens
  stream->push(sse_event(ping("u")));
  const auto pong = server.wait_for([](const Received& r) { return r.is_response_to("u"); });
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->body["result"], json({{"answered_by", "user"}}));
  EXPECT_EQ(handled, 1);
}

TEST_F(StreamableHttpTest, A405ToTheGetMeansNoStreamAndNoError) {
  server.refuse_get();
  auto client = make_client();
  client->connect();
  EXPECT_TRUE(log.wait_for("the server offers no GET stream (HTTP 405)"));
  EXPECT_EQ(client->call_tool("echo")["echo"], "tools/call");
  EXPECT_EQ(server.count(is_get), 1u);  // no retries after a 405
}

TEST_F(StreamableHttpTest, WithoutOpenGetStreamNoGetIsSent) {
  StreamableHttpOptions options;
  options.open_get_stream = false;
  auto client = make_client(options);
  client->connect();
  EXPECT_EQ(client->call_tool("echo")["echo"], "tools/call");
  client->close();  // joins every thread the transport ever started
  EXPECT_EQ(server.count(is_get), 0u);
}

TEST_F(StreamableHttpTest, TheGetStreamReconnectsWithLastEventIdAfterTheRetryDelay) {
  StreamableHttpOptions options;
  options.reconnect_delay = 5s;  // the server's retry: must win over this
  auto client = make_client(options);
  client->connect();
  auto stream = server.wait_get_stream();
  ASSERT_TRUE(stream);
  stream->push("id: ev-1\nretry: 300\n" + sse_event(ping("g1")));
  ASSERT_TRUE(server.wait_for([](const Received& r) { return r.is_response_to("g1"); }));
  const auto closed_at = std::chrono::steady_clock::now();
  stream->close();
  auto again = server.wait_get_stream(1);
  ASSERT_TRUE(again);
  const auto waited = std::chrono::steady_clock::now() - closed_at;
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 4s);  // not the 5 s default
  const auto get = server.wait_for(is_get, 1);
  ASSERT_TRUE(get);
  EXPECT_EQ(get->header("Last-Event-ID"), "ev-1");
  again->push(sse_event(ping("g2")));
  EXPECT_TRUE(server.wait_for([](const Received& r) { return r.is_response_to("g2"); }));
}

TEST_F(StreamableHttpTest, APostStreamThatBreaksIsResumedWithGetAndLastEventId) {
  StreamableHttpOptions options;
  options.reconnect_delay = 10ms;
  auto client = make_client(options);
  client->connect();
  std::promise<std::string> resumed_from;
  json awaited;
  server.on_resume([&](const std::string& last_event_id, httplib::Response& res) {
    resumed_from.set_value(last_event_id);
    auto channel = SseChannel::make();
    channel->attach(res);
    channel->push("id: r-2\n" + sse_event(response(awaited, {{"resumed", true}})));
    channel->close();
  });
  auto next = stream_next_request("id: r-1\ndata:\n\n");
  auto call = std::async(std::launch::async, [&] { return client->call_tool("slow"); });
  auto [request, channel] = next.get();
  awaited = request["id"];
  channel->close();  // ends the stream without the response
  auto from = resumed_from.get_future();
  ASSERT_EQ(from.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(from.get(), "r-1");
  EXPECT_EQ(call.get(), json({{"resumed", true}}));
}

}  // namespace
}  // namespace mcp
