// The Streamable HTTP transport: the handshake and its headers, requests and their answers
// (JSON or SSE), the pong, sessions that end, errors, timeouts and close.
#include "mcp/streamable_http_transport.hpp"

#include "streamable_http_fixture.hpp"

#include <gtest/gtest.h>

namespace mcp {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::FakeMcpServer;
using test::is_get;
using test::ping;
using test::Received;
using test::response;
using test::sse_event;
using test::StreamableHttpTest;

TEST_F(StreamableHttpTest, HandshakeCarriesTheSessionAndProtocolVersionHeaders) {
  auto client = make_client();
  EXPECT_EQ(client->connect()["serverInfo"]["name"], "fake-http");
  EXPECT_EQ(transport_->session_id(), "session-1");

  const auto initialize =
      server.wait_for([](const Received& r) { return r.is_method("initialize"); });
  ASSERT_TRUE(initialize);
  EXPECT_EQ(initialize->header("Mcp-Session-Id"), "<none>");
  EXPECT_EQ(initialize->header("MCP-Protocol-Version"), "<none>");
  EXPECT_EQ(initialize->header("Content-Type"), "application/json");
  EXPECT_EQ(initialize->header("Accept"), "application/json, text/event-stream");

  const auto initialized =
      server.wait_for([](const Received& r) { return r.is_method("notifications/initialized"); });
  ASSERT_TRUE(initialized);
  EXPECT_EQ(initialized->status, 202);
  EXPECT_EQ(initialized->header("Mcp-Session-Id"), "session-1");
  EXPECT_EQ(initialized->header("MCP-Protocol-Version"), "2025-11-25");
  EXPECT_EQ(initialized->header("Accept"), "application/json, text/event-stream");

  const auto get = server.wait_for(is_get);
  ASSERT_TRUE(get);
  EXPECT_EQ(get->header("Accept"), "text/event-stream");
  EXPECT_EQ(get->header("Mcp-Session-Id"), "session-1");
  EXPECT_EQ(get->header("MCP-Protocol-Version"), "2025-11-25");
  client->close();
}

TEST_F(StreamableHttpTest, NoProtocolVersionHeaderBefore2025_06_18) {
  auto client = make_client({}, "2025-03-26");
  client->connect();
  client->ping();
  const auto ping_post = server.wait_for([](const Received& r) { return r.is_method("ping"); });
  ASSERT_TRUE(ping_post);
  EXPECT_EQ(ping_post->header("Mcp-Session-Id"), "session-1");
  EXPECT_EQ(ping_post->header("MCP-Protocol-Version"), "<none>");
}

TEST_F(StreamableHttpTest, JsonAndSseAnswersBothDeliverTheResult) {
  auto client = make_client();
  client->connect();
  EXPECT_EQ(client->call_tool("echo")["echo"], "tools/call");  // JSON answer

  // An SSE answer: comment, 2025-11-25 priming event, then the response split across writes.
  auto next = stream_next_request(": hello\n\nid: prime\ndata:\n\n");
  auto call = std::async(std::launch::async, [&] { return client->list_tools(); });
  auto [request, channel] = next.get();
  const std::string event = sse_event(response(request["id"], {{"tools", json::array()}}));
  channel->push(event.substr(0, 9));
  channel->push(event.substr(9));
  channel->close();
  EXPECT_EQ(call.get(), json({{"tools", json::array()}}));
}

TEST_F(StreamableHttpTest, APingOnThePostStreamIsAnsweredByASeparatePostWhileTheStreamIsOpen) {
  auto client = make_client();
  client->connect();
  auto next = stream_next_request(sse_event(ping("srv-1")));
  auto call = std::async(std::launch::async, [&] {
    return client->call_tool("echo", {{"text", "a"}});
  });
  auto [request, channel] = next.get();

  const auto pong = server.wait_for([](const Received& r) { return r.is_response_to("srv-1"); });
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->body, json::parse(R"({"jsonrpc":"2.0","id":"srv-1","result":{}})"));
  EXPECT_EQ(pong->status, 202);
  EXPECT_EQ(pong->header("Mcp-Session-Id"), "session-1");
  EXPECT_EQ(pong->header("MCP-Protocol-Version"), "2025-11-25");
  EXPECT_EQ(pong->header("Accept"), "application/json, text/event-stream");
  EXPECT_EQ(pong->header("Content-Type"), "application/json");
  // The pong went out while the call's stream was still open: its response is not sent yet.
  EXPECT_EQ(call.wait_for(0ms), std::future_status::timeout);

  channel->push(sse_event(response(request["id"], {{"content", json::array()}})));
  channel->close();
  EXPECT_EQ(call.get(), json({{"content", json::array()}}));
}

class PongFaultTest : public StreamableHttpTest,
                      public ::testing::WithParamInterface<FakeMcpServer::Fault> {};

TEST_P(PongFaultTest, AFailedPongPostDoesNotFailThePendingCall) {
  auto client = make_client();
  client->connect();
  server.arm(GetParam());
  auto next = stream_next_request(sse_event(ping(7)));
  auto call = std::async(std::launch::async, [&] { return client->call_tool("echo"); });
  auto [request, channel] = next.get();
  ASSERT_TRUE(server.wait_for([](const Received& r) { return r.is_response_to(7); }));
  EXPECT_TRUE(log.wait_for("could not answer server request 'ping' id 7, dropped"));

  // The stream is still read after the failed pong: a second ping and the response arrive.
  channel->push(sse_event(ping(8)));
  ASSERT_TRUE(server.wait_for([](const Received& r) { return r.is_response_to(8); }));
  channel->push(sse_event(response(request["id"], {{"content", json::array()}})));
  channel->close();
  EXPECT_EQ(call.get(), json({{"content", json::array()}}));
}

// A 404 to the pong ends the session as well: A404ToAPongStartsANewSessionOnTheNextRequest.
INSTANTIATE_TEST_SUITE_P(Faults, PongFaultTest,
                         ::testing::Values(FakeMcpServer::Fault::status_500,
                                           FakeMcpServer::Fault::drop),
                         [](const ::testing::TestParamInfo<FakeMcpServer::Fault>& info) {
                           return std::string(info.param == FakeMcpServer::Fault::drop
                                                  ? "ConnectionDropped"
                                                  : "Status500");
                         });

TEST_F(StreamableHttpTest, A404ToAPongStartsANewSessionOnTheNextRequest) {
  auto client = make_client();
  client->connect();
  server.arm(FakeMcpServer::Fault::status_404);
  auto next = stream_next_request(sse_event(ping("p")));
  auto call = std::async(std::launch::async, [&] { return client->call_tool("echo"); });
  auto [request, channel] = next.get();
  ASSERT_TRUE(log.wait_for("the server ended session session-1"));
  EXPECT_TRUE(log.wait_for("could not answer server request 'ping' id \"p\", dropped"));
  channel->push(sse_event(response(request["id"], json::object())));
  channel->close();
  EXPECT_EQ(call.get(), json::object());  // the call on the old stream still completes
  EXPECT_EQ(transport_->session_id(), "");

  server.on_request(nullptr);
  EXPECT_EQ(client->ping(), json({{"echo", "ping"}}));
  const auto second_initialize =
      server.wait_for([](const Received& r) { return r.is_method("initialize"); }, 1);
  ASSERT_TRUE(second_initialize);
  // "...by sending a new InitializeRequest without a session ID attached."
  EXPECT_EQ(second_initialize->header("Mcp-Session-Id"), "<none>");
  const auto ping_post = server.wait_for([](const Received& r) { return r.is_method("ping"); });
  ASSERT_TRUE(ping_post);
  EXPECT_EQ(ping_post->header("Mcp-Session-Id"), "session-2");
  EXPECT_EQ(transport_->session_id(), "session-2");
  // The new session gets its own GET stream.
  EXPECT_TRUE(server.wait_for(
      [](const Received& r) { return is_get(r) && r.header("Mcp-Session-Id") == "session-2"; }));
}

TEST_F(StreamableHttpTest, A404ToARequestFailsItAndTheNextRequestReinitializes) {
  auto client = make_client();
  client->connect();
  server.end_sessions();
  try {
    client->call_tool("echo");
    FAIL() << "a request in an ended session succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::session_expired);
  }
  EXPECT_EQ(client->call_tool("echo")["echo"], "tools/call");
  EXPECT_EQ(server.count([](const Received& r) { return r.is_method("initialize"); }), 2u);
  EXPECT_EQ(transport_->session_id(), "session-2");
}
TEST_F(StreamableHttpTest, AnErrorStatusFailsTheRequestAtOnceUnlessItCarriesTheResponse) {
  auto client = make_client();
  client->connect();
  server.on_request([](const json& request, httplib::Response& res) {
    if (request["params"]["name"] == "rpc-error") {
      res.status = 400;
      res.set_content(json({{"jsonrpc", "2.0"},
                            {"id", request["id"]},
                            {"error", {{"code", -32602}, {"message", "Invalid params"}}}})
                          .dump(),
                      "application/json");
    } else {
      res.status = 500;
      res.set_content("boom", "text/plain");
    }
  });
  try {
    client->call_tool("http-error");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::send_failed);
    EXPECT_NE(std::string(e.what()).find("HTTP 500: boom"), std::string::npos) << e.what();
  }
  try {
    client->call_tool("rpc-error");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::rpc_error);
    EXPECT_EQ(e.rpc_code(), -32602);
  }
}

TEST_F(StreamableHttpTest, AnUnreachableServerFailsConnectPromptly) {
  const std::string url = server.url();
  server.stop();
  StreamableHttpOptions options;
  options.logger = log.logger();
  Client client(std::make_unique<StreamableHttpTransport>(url, options), ClientOptions{});
  try {
    client.connect();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::send_failed);
  }
}

TEST_F(StreamableHttpTest, ATimedOutRequestIsCancelledAndItsStreamClosed) {
  auto client = make_client();
  client->connect();
  auto [request, channel] = time_out_a_call(*client);
  const auto cancelled =
      server.wait_for([](const Received& r) { return r.is_method("notifications/cancelled"); });
  ASSERT_TRUE(cancelled);
  EXPECT_EQ(cancelled->body["params"]["requestId"], request["id"]);
  EXPECT_TRUE(channel->wait_gone());  // the client stopped reading the abandoned stream
}

TEST_F(StreamableHttpTest, CloseStopsEveryStreamAndDeletesTheSession) {
  auto client = make_client();
  client->connect();
  auto get = server.wait_get_stream();
  ASSERT_TRUE(get);
  auto next = stream_next_request(": pending\n\n");
  auto call = std::async(std::launch::async, [&] { return client->call_tool("never"); });
  auto [request, channel] = next.get();

  const auto started = std::chrono::steady_clock::now();
  client->close();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  try {
    call.get();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::connection_closed);
  }
  const auto deleted = server.wait_for([](const Received& r) { return r.method == "DELETE"; });
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->header("Mcp-Session-Id"), "session-1");
  EXPECT_EQ(deleted->header("MCP-Protocol-Version"), "2025-11-25");
  EXPECT_TRUE(get->wait_gone());
  EXPECT_TRUE(channel->wait_gone());
}

TEST_F(StreamableHttpTest, ARequestOfTheUserCarriesTheConfiguredHeaders) {
  StreamableHttpOptions options;
  options.headers = {{"Authorization", "Bearer secret-token"}};
  auto client = make_client(options);
  client->connect();
  const auto initialize =
      server.wait_for([](const Received& r) { return r.is_method("initialize"); });
  ASSERT_TRUE(initialize);
  EXPECT_EQ(initialize->header("Authorization"), "Bearer secret-token");
}
TEST(StreamableHttpTransport, RejectsAUrlThatIsNotHttp) {
  try {
    StreamableHttpTransport transport("ftp://x/mcp");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::connection_failed);
  }
}

}  // namespace
}  // namespace mcp
