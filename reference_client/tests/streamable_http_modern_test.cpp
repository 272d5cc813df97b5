// The Streamable HTTP transport in the 2026-07-28 binding: no session, the request metadata
// headers, no responses posted, a timeout closes the stream.
#include "mcp/streamable_http_transport.hpp"

#include "streamable_http_fixture.hpp"

#include <gtest/gtest.h>

namespace mcp {
namespace {

using nlohmann::json;
using test::ping;
using test::Received;
using test::response;
using test::sse_event;
using test::StreamableHttpTest;

TEST_F(StreamableHttpTest, AModernSessionPostsTheRequestMetadataHeadersAndNoSession) {
  server.serve_modern();
  auto client = make_client({}, "2026-07-28");
  EXPECT_EQ(client->connect()["supportedVersions"], json::array({"2026-07-28"}));
  EXPECT_EQ(client->call_tool("echo", {{"text", "a"}})["echo"], "tools/call");
  client->close();

  const auto discover =
      server.wait_for([](const Received& r) { return r.is_method("server/discover"); });
  ASSERT_TRUE(discover);
  EXPECT_EQ(discover->header("MCP-Protocol-Version"), "2026-07-28");
  EXPECT_EQ(discover->header("Mcp-Method"), "server/discover");
  EXPECT_EQ(discover->header("Mcp-Name"), "<none>");
  EXPECT_EQ(discover->header("Mcp-Session-Id"), "<none>");
  EXPECT_EQ(discover->header("Accept"), "application/json, text/event-stream");
  EXPECT_EQ(discover->header("Content-Type"), "application/json");
  const auto call = server.wait_for([](const Received& r) { return r.is_method("tools/call"); });
  ASSERT_TRUE(call);
  EXPECT_EQ(call->header("MCP-Protocol-Version"), "2026-07-28");
  EXPECT_EQ(call->header("Mcp-Method"), "tools/call");
  EXPECT_EQ(call->header("Mcp-Name"), "echo");
  EXPECT_EQ(call->header("Mcp-Session-Id"), "<none>");
  EXPECT_EQ(call->body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  // No GET stream, no DELETE, no initialize.
  EXPECT_EQ(server.count([](const Received& r) { return r.method != "POST"; }), 0u);
  EXPECT_EQ(server.count([](const Received& r) { return r.is_method("initialize"); }), 0u);
  EXPECT_EQ(transport_->session_id(), "");
}

TEST_F(StreamableHttpTest, APingOnAModernPostStreamGetsNoResponseAndTheCallItsResult) {
  server.serve_modern();
  auto client = make_client({}, "2026-07-28");
  client->connect();
  auto next = stream_next_request(sse_event(ping("modern-ping")));
  auto call = std::async(std::launch::async, [&] {
    return client->call_tool("echo", {{"text", "a"}});
  });
  auto [request, channel] = next.get();
  // The ping reached the client (logged and dropped) before the result is sent.
  EXPECT_TRUE(log.wait_for("server request 'ping' in a modern session"));
  channel->push(sse_event(response(request["id"], {{"content", json::array()}})));
  channel->close();
  EXPECT_EQ(call.get(), json({{"content", json::array()}}));
  client->close();
  EXPECT_EQ(server.count(
                [](const Received& r) { return r.body.is_object() && !r.body.contains("method"); }),
            0u);
}

TEST_F(StreamableHttpTest, AModernTransportPostsNoResponseWhoeverAsksForOne) {
  StreamableHttpOptions options;
  options.logger = log.logger();
  StreamableHttpTransport transport(server.url(), options);
  transport.set_protocol_version("2026-07-28");
  transport.start([](const json&) {}, [](const std::string&) {});
  EXPECT_EQ(transport.send(response("srv-1", json::object())), make_error_code(errc::send_failed));
  EXPECT_EQ(transport.send(json{{"jsonrpc", "2.0"},
                                {"id", "srv-2"},
                                {"error", {{"code", -32601}, {"message", "Method not found"}}}}),
            make_error_code(errc::send_failed));
  transport.close();
  EXPECT_EQ(server.count([](const Received&) { return true; }), 0u);
}

TEST_F(StreamableHttpTest, AModernRequestThatTimesOutClosesItsStreamAndPostsNoCancellation) {
  server.serve_modern();
  auto client = make_client({}, "2026-07-28");
  client->connect();
  auto [request, channel] = time_out_a_call(*client);
  EXPECT_TRUE(channel->wait_gone());  // closing the stream is the cancellation
  client->close();
  EXPECT_EQ(server.count([](const Received& r) { return r.is_method("notifications/cancelled"); }),
            0u);
}

}  // namespace
}  // namespace mcp
