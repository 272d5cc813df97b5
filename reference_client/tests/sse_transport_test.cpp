#include "mcp/sse_transport.hpp"

#include "http_test_server.hpp"
#include "mcp/client.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <future>

namespace mcp {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::HttpTestServer;
using test::LogCapture;
using test::SseChannel;

std::string message_event(const json& message) {
  return "event: message\ndata: " + message.dump() + "\n\n";
}

// A 2024-11-05 server: GET /sse opens the stream and names the endpoint; every client POST to
// the endpoint gets 202 and is answered (if a request) on the stream.
class FakeLegacyServer {
 public:
  explicit FakeLegacyServer(
      std::string endpoint_event = "event: endpoint\ndata: /message?sessionId=abc\n\n")
      : endpoint_event_(std::move(endpoint_event)) {
    http_.server().Get("/sse", [this](const httplib::Request&, httplib::Response& res) {
      auto channel = SseChannel::make();
      channel->attach(res);
      channel->push(endpoint_event_);
      {
        std::lock_guard lock(mutex_);
        stream_ = channel;
      }
      cv_.notify_all();
    });
    http_.server().Post("/message", [this](const httplib::Request& req, httplib::Response& res) {
      if (req.get_param_value("sessionId") != "abc") {
        res.status = 404;
        return;
      }
      res.status = 202;
      const json body = json::parse(req.body, nullptr, false);
      {
        std::lock_guard lock(mutex_);
        posts_.push_back({body, req.get_header_value("Content-Type")});
      }
      cv_.notify_all();
      if (body.contains("method") && body.contains("id") && answer_requests_) answer(body);
    });
  }

  // The server's handler threads use the members below http_, which would otherwise be
  // destroyed first (http_ is declared first): stop them before anything goes.
  ~FakeLegacyServer() { http_.stop(); }
  FakeLegacyServer(const FakeLegacyServer&) = delete;
  FakeLegacyServer& operator=(const FakeLegacyServer&) = delete;

  bool start() { return http_.start(); }
  std::string url() const { return http_.url("/sse"); }
  int port() const { return http_.port(); }
  void answer_requests(bool on) { answer_requests_ = on; }

  std::shared_ptr<SseChannel> stream() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, 10s, [&] { return stream_ != nullptr; });
    return stream_;
  }

  // The n-th POSTed message matching `match`, waited for (bounded).
  std::optional<std::pair<json, std::string>> wait_post(
      const std::function<bool(const json&)>& match) {
    std::unique_lock lock(mutex_);
    std::optional<std::pair<json, std::string>> found;
    cv_.wait_for(lock, 10s, [&] {
      for (const auto& post : posts_) {
        if (match(post.first)) {
          found = post;
          return true;
        }
      }
      return false;
    });
    return found;
  }

 private:
  void answer(const json& request) {
    json result = json::object();
    if (request["method"] == "initialize") {
      result = {{"protocolVersion", "2024-11-05"},
                {"capabilities", json::object()},
                {"serverInfo", {{"name", "legacy"}, {"version", "1"}}}};
    } else if (request["method"] == "tools/call") {
      result = {{"content", json::array({{{"type", "text"}, {"text", "ok"}}})}};
    }
    stream()->push(message_event({{"jsonrpc", "2.0"}, {"id", request["id"]}, {"result", result}}));
  }

  HttpTestServer http_;
  std::string endpoint_event_;
  std::atomic<bool> answer_requests_ = true;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::shared_ptr<SseChannel> stream_;
  std::vector<std::pair<json, std::string>> posts_;
};

class SseTransportTest : public ::testing::Test {
 protected:
  std::unique_ptr<Client> make_client(const std::string& url,
                                      std::chrono::milliseconds endpoint_timeout = 10s) {
    SseTransportOptions transport_options;
    transport_options.logger = log.logger();
    transport_options.endpoint_timeout = endpoint_timeout;
    auto transport = std::make_unique<SseTransport>(url, transport_options);
    transport_ = transport.get();
    ClientOptions options;
    options.protocol_version = "2024-11-05";
    options.request_timeout = 10s;
    options.logger = log.logger();
    return std::make_unique<Client>(std::move(transport), std::move(options));
  }

  LogCapture log;
  SseTransport* transport_ = nullptr;
};

TEST_F(SseTransportTest, PostsEveryMessageToTheEndpointAndReadsAnswersFromTheStream) {
  FakeLegacyServer server;
  ASSERT_TRUE(server.start());
  auto client = make_client(server.url());
  EXPECT_EQ(client->connect()["serverInfo"]["name"], "legacy");
  EXPECT_EQ(transport_->endpoint(),
            "http://127.0.0.1:" + std::to_string(server.port()) + "/message?sessionId=abc");
  const auto initialized = server.wait_post(
      [](const json& m) { return m.value("method", "") == "notifications/initialized"; });
  ASSERT_TRUE(initialized);
  EXPECT_EQ(initialized->second, "application/json");
  EXPECT_EQ(client->call_tool("echo")["content"][0]["text"], "ok");
}

TEST_F(SseTransportTest, AServerPingOnTheStreamIsAnsweredByAPostToTheEndpoint) {
  FakeLegacyServer server;
  ASSERT_TRUE(server.start());
  auto client = make_client(server.url());
  client->connect();
  server.stream()->push(
      message_event({{"jsonrpc", "2.0"}, {"id", "legacy-1"}, {"method", "ping"}}));
  const auto pong =
      server.wait_post([](const json& m) { return m.value("id", json()) == "legacy-1"; });
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->first, json::parse(R"({"jsonrpc":"2.0","id":"legacy-1","result":{}})"));
}

TEST_F(SseTransportTest, TheEndOfTheStreamFailsPendingRequestsAtOnce) {
  FakeLegacyServer server;
  ASSERT_TRUE(server.start());
  auto client = make_client(server.url());
  client->connect();
  server.answer_requests(false);
  auto call = std::async(std::launch::async, [&] { return client->call_tool("echo"); });
  ASSERT_TRUE(
      server.wait_post([](const json& m) { return m.value("method", "") == "tools/call"; }));
  server.stream()->close();
  ASSERT_EQ(call.wait_for(5s), std::future_status::ready);
  try {
    call.get();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::connection_closed);
  }
  EXPECT_FALSE(client->connected());
}

TEST_F(SseTransportTest, CloseEndsTheStream) {
  FakeLegacyServer server;
  ASSERT_TRUE(server.start());
  auto client = make_client(server.url());
  client->connect();
  const auto started = std::chrono::steady_clock::now();
  client->close();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_TRUE(server.stream()->wait_gone());
  try {
    client->ping();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::connection_closed);
  }
}

TEST_F(SseTransportTest, NoEndpointEventFailsConnect) {
  FakeLegacyServer server(": nothing to see\n\n");
  ASSERT_TRUE(server.start());
  auto client = make_client(server.url(), 300ms);
  try {
    client->connect();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::connection_failed);
    EXPECT_NE(std::string(e.what()).find("no endpoint event within 300 ms"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(server.stream()->wait_gone());
}

TEST_F(SseTransportTest, AnEndpointOfAnotherOriginIsRefused) {
  // Refused, not used: the connection goes on waiting and takes the next, same-origin one.
  // (Synchronised on the refusal's log line; a short endpoint timeout raced a slow machine.)
  FakeLegacyServer server("event: endpoint\ndata: http://elsewhere.example:80/message\n\n");
  ASSERT_TRUE(server.start());
  auto client = make_client(server.url());
  auto connecting = std::async(std::launch::async, [&] { return client->connect(); });
  ASSERT_TRUE(log.wait_for("the endpoint event names another origin"));
  server.stream()->push("event: endpoint\ndata: /message?sessionId=abc\n\n");
  EXPECT_EQ(connecting.get()["serverInfo"]["name"], "legacy");
}

TEST_F(SseTransportTest, AStreamThatCannotBeOpenedFailsConnect) {
  FakeLegacyServer server;
  ASSERT_TRUE(server.start());
  auto client = make_client(server.url() + "-missing");
  try {
    client->connect();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::connection_failed);
    EXPECT_NE(std::string(e.what()).find("HTTP 404"), std::string::npos) << e.what();
  }
}

TEST_F(SseTransportTest, APostAnsweredWithAnErrorStatusFailsThatSend) {
  HttpTestServer http;
  auto channel = SseChannel::make();
  http.server().Get("/sse", [&](const httplib::Request&, httplib::Response& res) {
    channel->attach(res);
    channel->push("event: endpoint\ndata: /gone\n\n");
  });
  ASSERT_TRUE(http.start());
  SseTransportOptions options;
  options.logger = log.logger();
  SseTransport transport(http.url("/sse"), options);
  transport.start([](const json&) {}, [](const std::string&) {});
  EXPECT_EQ(transport.send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}),
            http_status_error(404));
  transport.close();
}

}  // namespace
}  // namespace mcp
