#include "mcp/client.hpp"

#include "fake_transport.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace mcp {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::FakeServer;
using test::FakeTransport;
using test::LogCapture;

json initialize_response(const json& request, const std::string& version = "2025-11-25") {
  return {{"jsonrpc", "2.0"},
          {"id", request["id"]},
          {"result",
           {{"protocolVersion", version},
            {"capabilities", json::object()},
            {"serverInfo", {{"name", "fake"}, {"version", "1"}}}}}};
}

json ping_with_id(const json& id) { return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}}; }
json pong(const json& id) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", json::object()}}; }

class ClientTest : public ::testing::Test {
 protected:
  std::unique_ptr<Client> make_client(ClientOptions options = {}) {
    options.logger = log.logger();
    options.request_timeout = 10s;
    return std::make_unique<Client>(std::make_unique<FakeTransport>(server), std::move(options));
  }

  // connect() with the fake server answering initialize; sends 0 and 1 are used up.
  std::unique_ptr<Client> connected_client(ClientOptions options = {}) {
    auto client = make_client(std::move(options));
    auto connecting = std::async(std::launch::async, [&] { return client->connect(); });
    const auto initialize = server->wait_sent(0);
    EXPECT_TRUE(initialize);
    server->inject(initialize_response(*initialize));
    connecting.get();
    EXPECT_TRUE(server->wait_sent(1));
    return client;
  }

  // Starts tools/call on another thread and returns the id the client gave it.
  json start_call(Client& client, std::future<json>& call, std::size_t send_index = 2) {
    call = std::async(std::launch::async, [&client] {
      return client.call_tool("echo", {{"x", 1}});
    });
    const auto request = server->wait_sent(send_index);
    EXPECT_TRUE(request);
    return request ? (*request)["id"] : json();
  }

  static json call_result(const json& id) {
    return {{"jsonrpc", "2.0"},
            {"id", id},
            {"result", {{"content", json::array({{{"type", "text"}, {"text", "done"}}})}}}};
  }

  std::shared_ptr<FakeServer> server = std::make_shared<FakeServer>();
  LogCapture log;
};

TEST_F(ClientTest, ConnectRunsTheHandshake) {
  ClientOptions options;
  options.protocol_version = "2025-06-18";
  options.client_info = {"tester", "9"};
  auto client = make_client(options);
  auto connecting = std::async(std::launch::async, [&] { return client->connect(); });
  const auto initialize = server->wait_sent(0);
  ASSERT_TRUE(initialize);
  EXPECT_EQ((*initialize)["method"], "initialize");
  EXPECT_EQ((*initialize)["params"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ((*initialize)["params"]["clientInfo"], json({{"name", "tester"}, {"version", "9"}}));
  EXPECT_TRUE((*initialize)["params"]["capabilities"].is_object());
  server->inject(initialize_response(*initialize, "2025-06-18"));
  const json result = connecting.get();
  EXPECT_EQ(result["serverInfo"]["name"], "fake");
  EXPECT_EQ(server->wait_sent(1).value(),
            json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_TRUE(client->connected());
  EXPECT_EQ(client->initialize_result(), result);
}

TEST_F(ClientTest, PingDuringInitializeIsAnswered) {
  auto client = make_client();
  auto connecting = std::async(std::launch::async, [&] { return client->connect(); });
  const auto initialize = server->wait_sent(0);
  ASSERT_TRUE(initialize);
  server->inject(ping_with_id("early"));
  EXPECT_EQ(server->wait_sent(1).value(), pong("early"));
  server->inject(initialize_response(*initialize));
  EXPECT_NO_THROW(connecting.get());
}

TEST_F(ClientTest, UnsupportedProtocolVersionDisconnects) {
  auto client = make_client();
  auto connecting = std::async(std::launch::async, [&] { return client->connect(); });
  const auto initialize = server->wait_sent(0);
  ASSERT_TRUE(initialize);
  server->inject(initialize_response(*initialize, "1999-01-01"));
  try {
    connecting.get();
    FAIL() << "connect accepted an unknown protocol version";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::unsupported_protocol_version);
  }
  EXPECT_TRUE(server->closed());
  EXPECT_EQ(server->sent_count(), 1u);  // no notifications/initialized
}

TEST_F(ClientTest, RequestsBeforeConnectFail) {
  auto client = make_client();
  try {
    client->ping();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_connected);
  }
}

TEST_F(ClientTest, PingWithTheIdOfThePendingCallIsAnsweredAndTheCallGetsItsOwnResult) {
  auto client = connected_client();
  std::future<json> call;
  const json id = start_call(*client, call);
  server->inject(ping_with_id(id));
  EXPECT_EQ(server->wait_sent(3).value(), pong(id));
  EXPECT_EQ(call.wait_for(0s), std::future_status::timeout);  // the ping was not its response
  server->inject(call_result(id));
  EXPECT_EQ(call.get()["content"][0]["text"], "done");
}

TEST_F(ClientTest, PingWithTheSameIdValueOfAnotherTypeIsAnsweredWithItsOwnType) {
  auto client = connected_client();
  std::future<json> call;
  const json id = start_call(*client, call);
  ASSERT_TRUE(id.is_number_integer());
  const json string_id = std::to_string(id.get<std::uint64_t>());
  server->inject(ping_with_id(string_id));
  const json reply = server->wait_sent(3).value();
  EXPECT_TRUE(reply["id"].is_string());
  EXPECT_EQ(reply, pong(string_id));
  // A response carrying the string id is not the integer call's response.
  server->inject({{"jsonrpc", "2.0"}, {"id", string_id}, {"result", {{"wrong", true}}}});
  EXPECT_EQ(call.wait_for(0s), std::future_status::timeout);
  server->inject(call_result(id));
  EXPECT_EQ(call.get()["content"][0]["text"], "done");
}

TEST_F(ClientTest, PongEchoesEveryValidIdWithItsType) {
  auto client = connected_client();
  const std::vector<json> ids = {"abc",
                                 7,
                                 0,
                                 "",
                                 -5,
                                 "\u00fc\u6f22\U0001F600",
                                 json::parse("9007199254740993"),
                                 json::parse("18446744073709551615"),
                                 json::parse("-9223372036854775808")};
  std::size_t index = 2;
  for (const json& id : ids) {
    SCOPED_TRACE(id.dump());
    server->inject(ping_with_id(id));
    const json reply = server->wait_sent(index++).value();
    EXPECT_EQ(reply["id"].dump(), id.dump());
    // Same JSON type (signed/unsigned storage is nlohmann's detail, not the wire's).
    EXPECT_EQ(reply["id"].is_string(), id.is_string());
    EXPECT_EQ(reply["id"].is_number_integer(), id.is_number_integer());
    EXPECT_EQ(reply["result"], json::object());
    EXPECT_FALSE(reply.contains("error"));
  }
}

TEST_F(ClientTest, PingWithAMalformedIdGetsNoReplyAndTheSessionGoesOn) {
  auto client = connected_client();
  std::future<json> call;
  const json id = start_call(*client, call);
  for (const json& bad : {json(), json::object(), json::array({1}), json(true), json(1.5)}) {
    server->inject(ping_with_id(bad));
  }
  // The next thing sent is the pong to a valid ping: nothing was sent for the malformed ones.
  server->inject(ping_with_id("after"));
  EXPECT_EQ(server->wait_sent(3).value(), pong("after"));
  EXPECT_TRUE(log.contains("invalid id"));
  server->inject(call_result(id));
  EXPECT_EQ(call.get()["content"][0]["text"], "done");
}

TEST_F(ClientTest, PingNotificationGetsNoReply) {
  auto client = connected_client();
  server->inject({{"jsonrpc", "2.0"}, {"method", "ping"}});
  server->inject(ping_with_id(1));
  EXPECT_EQ(server->wait_sent(2).value(), pong(1));
}

TEST_F(ClientTest, PingParamsAbsentEmptyMetaOrNullAreAllAnswered) {
  auto client = connected_client();
  const std::vector<json> params = {json::object(), json({{"_meta", {{"progressToken", 1}}}}),
                                    json()};
  std::size_t index = 2;
  int id = 100;
  server->inject(ping_with_id(id));
  EXPECT_EQ(server->wait_sent(index++).value(), pong(id));
  for (const json& p : params) {
    ++id;
    json ping = ping_with_id(id);
    ping["params"] = p;
    server->inject(ping);
    EXPECT_EQ(server->wait_sent(index++).value(), pong(id));
  }
}

TEST_F(ClientTest, UnknownServerRequestGetsMethodNotFoundWithTheSameId) {
  auto client = connected_client();
  server->inject({{"jsonrpc", "2.0"}, {"id", "u1"}, {"method", "x/unknown"}});
  const json reply = server->wait_sent(2).value();
  EXPECT_EQ(reply["id"], "u1");
  EXPECT_EQ(reply["error"]["code"], -32601);
  EXPECT_EQ(reply["error"]["message"], "Method not found");
  EXPECT_FALSE(reply.contains("result"));
}

TEST_F(ClientTest, UserPingHandlerReplacesTheAutomaticPong) {
  auto client = connected_client();
  json seen_params = "unset";
  client->set_request_handler("ping", [&](const json& params) {
    seen_params = params;
    return json{{"custom", true}};
  });
  server->inject({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}, {"params", {{"a", 1}}}});
  EXPECT_EQ(server->wait_sent(2).value()["result"], json({{"custom", true}}));
  EXPECT_EQ(seen_params, json({{"a", 1}}));

  client->set_request_handler("ping",
                              [](const json&) -> json { throw Error::rpc(-32000, "busy"); });
  server->inject(ping_with_id(2));
  const json error_reply = server->wait_sent(3).value();
  EXPECT_EQ(error_reply["error"]["code"], -32000);
  EXPECT_EQ(error_reply["error"]["message"], "busy");

  client->set_request_handler("ping", nullptr);  // back to the automatic pong
  server->inject(ping_with_id(3));
  EXPECT_EQ(server->wait_sent(4).value(), pong(3));
}

TEST_F(ClientTest, HandlersForOtherMethodsAndNotifications) {
  auto client = connected_client();
  client->set_request_handler("roots/list", [](const json&) {
    return json{{"roots", json::array()}};
  });
  std::promise<json> notified;
  client->set_notification_handler("notifications/message",
                                   [&](const json& params) { notified.set_value(params); });
  server->inject(
      {{"jsonrpc", "2.0"}, {"method", "notifications/message"}, {"params", {{"level", "info"}}}});
  EXPECT_EQ(notified.get_future().get()["level"], "info");
  server->inject({{"jsonrpc", "2.0"}, {"id", 5}, {"method", "roots/list"}});
  EXPECT_EQ(server->wait_sent(2).value()["result"], json({{"roots", json::array()}}));
  client->set_request_handler("boom", [](const json&) -> json { throw std::runtime_error("bad"); });
  server->inject({{"jsonrpc", "2.0"}, {"id", 6}, {"method", "boom"}});
  EXPECT_EQ(server->wait_sent(3).value()["error"]["code"], -32603);
}

TEST_F(ClientTest, ServerErrorResponseSurfacesItsCode) {
  auto client = connected_client();
  auto pinging = std::async(std::launch::async, [&] { return client->ping(); });
  const json request = server->wait_sent(2).value();
  EXPECT_EQ(request["method"], "ping");
  EXPECT_FALSE(request.contains("params"));
  server->inject({{"jsonrpc", "2.0"},
                  {"id", request["id"]},
                  {"error", {{"code", -32601}, {"message", "Method not found"}}}});
  try {
    pinging.get();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::rpc_error);
    EXPECT_EQ(e.rpc_code(), -32601);
    EXPECT_STREQ(e.what(), "Method not found");
  }
  // The connection is still usable.
  auto again = std::async(std::launch::async, [&] { return client->ping(); });
  server->inject(pong(server->wait_sent(3).value()["id"]));
  EXPECT_EQ(again.get(), json::object());
}

TEST_F(ClientTest, TimeoutSendsCancelledAndALateResponseIsSkipped) {
  auto client = connected_client();
  try {
    client->call_tool("slow", json::object(), 50ms);
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::timeout);
  }
  const json request = server->wait_sent(2).value();
  const json cancel = server->wait_sent(3).value();
  EXPECT_EQ(cancel["method"], "notifications/cancelled");
  EXPECT_FALSE(cancel.contains("id"));
  EXPECT_EQ(cancel["params"]["requestId"], request["id"]);
  EXPECT_TRUE(cancel["params"]["reason"].is_string());

  server->inject(call_result(request["id"]));
  EXPECT_TRUE(log.contains("unknown request id"));
  auto pinging = std::async(std::launch::async, [&] { return client->ping(); });
  server->inject(pong(server->wait_sent(4).value()["id"]));
  EXPECT_EQ(pinging.get(), json::object());
}

TEST_F(ClientTest, GarbageFramesAndUnknownResponsesAreSkipped) {
  auto client = connected_client();
  std::future<json> call;
  const json id = start_call(*client, call);
  server->inject(42);
  server->inject({{"jsonrpc", "2.0"}, {"id", 999}, {"result", {{"stray", true}}}});
  server->inject({{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32700}}}});
  server->inject(ping_with_id("still-alive"));
  EXPECT_EQ(server->wait_sent(3).value(), pong("still-alive"));
  EXPECT_EQ(call.wait_for(0s), std::future_status::timeout);
  server->inject(call_result(id));
  EXPECT_EQ(call.get()["content"][0]["text"], "done");
  EXPECT_TRUE(log.contains("unknown request id 999"));
}

TEST_F(ClientTest, BatchOfPingsIsAnsweredOneByOne) {
  auto client = connected_client();
  server->inject(json::array({ping_with_id("a"), ping_with_id("b")}));
  EXPECT_EQ(server->wait_sent(2).value(), pong("a"));
  EXPECT_EQ(server->wait_sent(3).value(), pong("b"));
}

TEST_F(ClientTest, PendingCallFailsPromptlyWhenTheConnectionEnds) {
  bool lost = false;
  ClientOptions options;
  options.on_connection_lost = [&](const Error& e) {
    lost = true;
    EXPECT_EQ(e.code(), errc::connection_closed);
  };
  auto client = connected_client(options);
  std::future<json> call;
  start_call(*client, call);
  server->close_remote("server exited");
  try {
    call.get();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::connection_closed);
    EXPECT_NE(std::string(e.what()).find("server exited"), std::string::npos);
  }
  EXPECT_TRUE(lost);
  EXPECT_FALSE(client->connected());
  EXPECT_THROW(client->ping(), Error);
}

TEST_F(ClientTest, CloseFailsPendingCallsAndIsIdempotent) {
  bool lost = false;
  ClientOptions options;
  options.on_connection_lost = [&](const Error&) { lost = true; };
  auto client = connected_client(options);
  std::future<json> call;
  start_call(*client, call);
  client->close();
  client->close();
  try {
    call.get();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::connection_closed);
  }
  EXPECT_FALSE(lost);  // an orderly close is not a lost connection
  EXPECT_TRUE(server->closed());
}

// Failure injection: the Nth send fails, for every N across connect, a call and two pongs.
TEST_F(ClientTest, FailedSendAtEachStepFailsOnlyItsOwnOperation) {
  for (std::size_t n = 0; n <= 5; ++n) {
    SCOPED_TRACE("failing send " + std::to_string(n));
    server = std::make_shared<FakeServer>();
    server->fail_send(n);
    auto client = make_client();
    auto connecting = std::async(std::launch::async, [&] { return client->connect(); });
    server->inject(initialize_response(server->wait_sent(0).value()));
    if (n <= 1) {
      try {
        connecting.get();
        FAIL() << "connect succeeded";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), errc::send_failed);
      }
      continue;
    }
    ASSERT_NO_THROW(connecting.get());
    std::future<json> call;
    const json id = start_call(*client, call);
    server->inject(ping_with_id(id));
    ASSERT_TRUE(server->wait_sent(3));
    server->inject(ping_with_id("second"));
    ASSERT_TRUE(server->wait_sent(4));
    server->inject(call_result(id));
    if (n == 2) {
      try {
        call.get();
        FAIL() << "the call's own send failed but it succeeded";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), errc::send_failed);
      }
    } else {
      // A failed pong (n = 3, 4) is dropped; the call is unaffected.
      EXPECT_EQ(call.get()["content"][0]["text"], "done");
    }
    if (n == 3 || n == 4) {
      EXPECT_TRUE(log.contains("dropped"));
    }
  }
}

TEST_F(ClientTest, ConcurrentCallsFromSeveralThreadsGetTheirOwnResults) {
  auto client = connected_client();
  server->set_responder([](const json& sent) -> std::optional<json> {
    if (sent.value("method", "") != "tools/call") return std::nullopt;
    return json{{"jsonrpc", "2.0"},
                {"id", sent["id"]},
                {"result", {{"echo", sent["params"]["arguments"]["i"]}}}};
  });
  std::vector<std::future<json>> calls;
  for (int i = 0; i < 8; ++i) {
    calls.push_back(std::async(std::launch::async, [&client, i] {
      return client->call_tool("echo", {{"i", i}});
    }));
  }
  for (int i = 0; i < 8; ++i) EXPECT_EQ(calls[i].get()["echo"], i);
}

// ping/two-pending-calls: two calls from two threads, a ping with the second's id, then the
// answers in reverse order. A single "current request" slot would mix them up.
TEST_F(ClientTest, TwoPendingCallsWithAPingCollidingWithTheSecondAnsweredInReverseOrder) {
  auto client = connected_client();
  std::future<json> first;
  std::future<json> second;
  const json first_id = start_call(*client, first, 2);
  const json second_id = start_call(*client, second, 3);
  server->inject(ping_with_id(second_id));
  EXPECT_EQ(server->wait_sent(4).value(), pong(second_id));
  auto answer = [](const json& id, const char* text) {
    return json{{"jsonrpc", "2.0"},
                {"id", id},
                {"result", {{"content", json::array({{{"type", "text"}, {"text", text}}})}}}};
  };
  server->inject(answer(second_id, "second"));
  EXPECT_EQ(second.get()["content"][0]["text"], "second");
  EXPECT_EQ(first.wait_for(0s), std::future_status::timeout);
  server->inject(answer(first_id, "first"));
  EXPECT_EQ(first.get()["content"][0]["text"], "first");
}

TEST_F(ClientTest, KeepaliveCountsConsecutiveFailuresAndResetsOnSuccess) {
  // Pings 1 and 2 go unanswered, 3 is answered (reset), then nothing is answered: the
  // connection is declared failed after three more consecutive failures.
  std::mutex mutex;
  std::condition_variable cv;
  std::optional<Error> lost;
  int pings = 0;
  server->set_responder([&](const json& sent) -> std::optional<json> {
    if (sent.value("method", "") != "ping") return std::nullopt;
    std::lock_guard lock(mutex);
    return ++pings == 3 ? std::optional<json>(pong(sent["id"])) : std::nullopt;
  });
  ClientOptions options;
  options.keepalive.interval = 5ms;
  options.keepalive.timeout = 20ms;
  options.keepalive.failure_threshold = 3;
  options.on_connection_lost = [&](const Error& e) {
    std::lock_guard lock(mutex);
    lost = e;
    cv.notify_all();
  };
  auto client = connected_client(options);
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, 30s, [&] { return lost.has_value(); }));
    EXPECT_EQ(pings, 6);
    EXPECT_NE(std::string(lost->what()).find("keepalive"), std::string::npos);
  }
  EXPECT_TRUE(log.contains("keepalive ping failed (2/3)"));
  EXPECT_TRUE(log.contains("keepalive ping failed (3/3)"));
  EXPECT_TRUE(server->closed());
  EXPECT_FALSE(client->connected());
}

TEST_F(ClientTest, TellsTheTransportTheNegotiatedProtocolVersion) {
  ClientOptions options;
  options.protocol_version = "2025-11-25";
  auto client = make_client(options);
  auto connecting = std::async(std::launch::async, [&] { return client->connect(); });
  const auto initialize = server->wait_sent(0);
  ASSERT_TRUE(initialize);
  EXPECT_TRUE(server->protocol_versions().empty());  // not before the server chose
  server->inject(initialize_response(*initialize, "2025-06-18"));
  connecting.get();
  EXPECT_EQ(server->protocol_versions(), std::vector<std::string>{"2025-06-18"});
}

TEST_F(ClientTest, ALateFailureOfARequestFailsItAtOnce) {
  auto client = connected_client();
  std::future<json> call;
  const json id = start_call(*client, call);
  const json request = server->wait_sent(2).value();
  server->report_failure(request, Error(errc::send_failed, "POST of tools/call answered HTTP 500"));
  ASSERT_EQ(call.wait_for(5s), std::future_status::ready);  // well before the 10 s timeout
  try {
    call.get();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::send_failed);
    EXPECT_NE(std::string(e.what()).find("HTTP 500"), std::string::npos);
  }
  EXPECT_TRUE(client->connected());
}

TEST_F(ClientTest, ALateFailureOfAPongIsLoggedAndThePendingCallGoesOn) {
  auto client = connected_client();
  std::future<json> call;
  const json id = start_call(*client, call);
  server->report_failure(pong("srv"), Error(errc::send_failed, "HTTP 500"));
  EXPECT_TRUE(log.wait_for("could not deliver a message"));
  EXPECT_EQ(call.wait_for(0ms), std::future_status::timeout);
  server->inject(call_result(id));
  EXPECT_EQ(call.get()["content"][0]["text"], "done");
}

TEST_F(ClientTest, AfterTheSessionExpiredTheNextRequestInitializesFirst) {
  auto client = connected_client();
  server->report_failure(json(), Error(errc::session_expired, "HTTP 404"));
  // The responder plays the server of the new session.
  server->set_responder([](const json& sent) -> std::optional<json> {
    if (sent.value("method", "") == "initialize") return initialize_response(sent, "2025-03-26");
    if (sent.value("method", "") == "ping") return pong(sent["id"]);
    return std::nullopt;
  });
  EXPECT_EQ(client->ping(), json::object());
  EXPECT_EQ(server->wait_sent(2).value()["method"], "initialize");
  EXPECT_EQ(server->wait_sent(3).value()["method"], "notifications/initialized");
  EXPECT_EQ(server->wait_sent(4).value()["method"], "ping");
  EXPECT_EQ(server->protocol_versions().back(), "2025-03-26");
  EXPECT_EQ(client->initialize_result()["protocolVersion"], "2025-03-26");
  // Once renewed, requests go straight out again.
  EXPECT_EQ(client->ping(), json::object());
  EXPECT_EQ(server->wait_sent(5).value()["method"], "ping");
}

TEST_F(ClientTest, ARequestThatFailsWithSessionExpiredMakesTheNextOneInitialize) {
  auto client = connected_client();
  std::future<json> call;
  start_call(*client, call);
  server->report_failure(server->wait_sent(2).value(), Error(errc::session_expired, "HTTP 404"));
  try {
    call.get();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::session_expired);
  }
  server->set_responder([](const json& sent) -> std::optional<json> {
    if (sent.value("method", "") == "initialize") return initialize_response(sent);
    if (sent.value("method", "") == "tools/call") return call_result(sent["id"]);
    return std::nullopt;
  });
  EXPECT_EQ(client->call_tool("echo")["content"][0]["text"], "done");
  EXPECT_EQ(server->wait_sent(3).value()["method"], "initialize");
}

}  // namespace
}  // namespace mcp
