#include "mcp/streamable_http_transport.hpp"

#include "http_test_server.hpp"
#include "mcp/client.hpp"
#include "mcp/json_rpc.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <set>

namespace mcp {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::HttpTestServer;
using test::LogCapture;
using test::SseChannel;

// One HTTP request the server received, with the status it got.
struct Received {
  std::string method;  // GET, POST, DELETE
  httplib::Headers headers;
  json body;  // POST only
  int status = 0;

  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string("<none>") : it->second;
  }
  bool is_response_to(const json& id) const {
    return body.is_object() && !body.contains("method") && body.contains("id") &&
           body["id"] == id && body["id"].is_string() == id.is_string();
  }
  bool is_method(const std::string& name) const {
    return body.is_object() && body.value("method", "") == name;
  }
};

std::string sse_event(const json& message, const std::string& prefix = "") {
  return prefix + "data: " + message.dump() + "\n\n";
}

json response(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json ping(const json& id) { return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}}; }

// A small Streamable HTTP server at /mcp: sessions, a scriptable answer to each client
// request, 202 to responses and notifications (or an armed fault), the GET stream, DELETE.
class FakeMcpServer {
 public:
  // Answers a client request (not initialize). Default: JSON {"echo": method}.
  using RequestHandler = std::function<void(const json& request, httplib::Response& response)>;
  enum class Fault { none, status_500, status_404, drop };

  FakeMcpServer() {
    auto& server = http_.server();
    server.Post("/mcp",
                [this](const httplib::Request& req, httplib::Response& res) { on_post(req, res); });
    server.Get("/mcp",
               [this](const httplib::Request& req, httplib::Response& res) { on_get(req, res); });
    server.Delete("/mcp", [this](const httplib::Request& req, httplib::Response& res) {
      res.status = 200;
      {
        std::lock_guard lock(mutex_);
        if (modern_) res.status = 405;
        sessions_.erase(req.get_header_value("Mcp-Session-Id"));
      }
      record({"DELETE", req.headers, json(), res.status});
    });
  }

  // The server's handler threads use the members below http_, which would otherwise be
  // destroyed first (http_ is declared first): stop them before anything goes.
  ~FakeMcpServer() { http_.stop(); }
  FakeMcpServer(const FakeMcpServer&) = delete;
  FakeMcpServer& operator=(const FakeMcpServer&) = delete;

  bool start() { return http_.start(); }
  void stop() { http_.stop(); }
  std::string url() const { return http_.url("/mcp"); }

  void on_request(RequestHandler handler) {
    std::lock_guard lock(mutex_);
    handler_ = std::move(handler);
  }
  // The next POST of a response or notification gets this fault instead of 202.
  void arm(Fault fault) {
    std::lock_guard lock(mutex_);
    fault_ = fault;
  }
  // GET: 405 (no stream) instead of a stream.
  void refuse_get() {
    std::lock_guard lock(mutex_);
    refuse_get_ = true;
  }
  // The 2026-07-28 binding: no session needed, server/discover answered, GET and DELETE 405.
  void serve_modern() {
    std::lock_guard lock(mutex_);
    modern_ = true;
  }
  // Requests with any current session id get 404 from now on.
  void end_sessions() {
    std::lock_guard lock(mutex_);
    sessions_.clear();
  }
  // A GET with Last-Event-ID is a resumption; this answers it (default: a new listening stream).
  void on_resume(
      std::function<void(const std::string& last_event_id, httplib::Response&)> handler) {
    std::lock_guard lock(mutex_);
    resume_ = std::move(handler);
  }

  // Waits (bounded) for the n-th received request (0-based) that matches.
  std::optional<Received> wait_for(const std::function<bool(const Received&)>& match,
                                   std::size_t nth = 0, std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(mutex_);
    std::optional<Received> found;
    cv_.wait_for(lock, limit, [&] {
      std::size_t seen = 0;
      for (const auto& r : received_) {
        if (match(r) && seen++ == nth) {
          found = r;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::size_t count(const std::function<bool(const Received&)>& match) const {
    std::lock_guard lock(mutex_);
    return static_cast<std::size_t>(std::count_if(received_.begin(), received_.end(), match));
  }

  // The listening stream once a GET opened it.
  std::shared_ptr<SseChannel> wait_get_stream(std::size_t nth = 0) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, 10s, [&] { return get_streams_.size() > nth; });
    return get_streams_.size() > nth ? get_streams_[nth] : nullptr;
  }

 private:
  void record(Received r) {
    {
      std::lock_guard lock(mutex_);
      received_.push_back(std::move(r));
    }
    cv_.notify_all();
  }

  void on_post(const httplib::Request& req, httplib::Response& res) {
    const json body = json::parse(req.body, nullptr, false);
    const std::string session = req.get_header_value("Mcp-Session-Id");
    if (body.is_object() && body.value("method", "") == "initialize") {
      std::string id;
      {
        std::lock_guard lock(mutex_);
        id = "session-" + std::to_string(++session_counter_);
        sessions_.insert(id);
      }
      res.set_header("Mcp-Session-Id", id);
      res.set_content(
          response(body["id"], {{"protocolVersion", body["params"]["protocolVersion"]},
                                {"capabilities", json::object()},
                                {"serverInfo", {{"name", "fake-http"}, {"version", "1"}}}})
              .dump(),
          "application/json");
      return record({"POST", req.headers, body, res.status});
    }
    bool modern = false;
    {
      std::lock_guard lock(mutex_);
      modern = modern_;
    }
    if (modern && body.is_object() && body.value("method", "") == "server/discover") {
      res.set_content(response(body["id"], {{"supportedVersions", {"2026-07-28"}},
                                            {"capabilities", json::object()},
                                            {"resultType", "complete"}})
                          .dump(),
                      "application/json");
      return record({"POST", req.headers, body, 200});
    }
    RequestHandler handler;
    Fault fault = Fault::none;
    {
      std::lock_guard lock(mutex_);
      if (sessions_.count(session) == 0 && !modern_) {
        res.status = session.empty() ? 400 : 404;
      } else if (classify(body) != MessageKind::request) {
        fault = fault_;
        fault_ = Fault::none;
        res.status = fault == Fault::status_500 ? 500 : fault == Fault::status_404 ? 404 : 202;
      } else {
        handler = handler_;
      }
    }
    if (fault == Fault::drop) {
      // Promises a body, then hangs up: the client's POST breaks off mid-answer.
      res.set_content_provider(100, "application/json",
                               [](size_t, size_t, httplib::DataSink&) { return false; });
    }
    if (handler) {
      handler(body, res);
    } else if (res.status == -1 || res.status == 200) {
      res.set_content(response(body["id"], {{"echo", body["method"]}}).dump(), "application/json");
    }
    record({"POST", req.headers, body, res.status == -1 ? 200 : res.status});
  }

  void on_get(const httplib::Request& req, httplib::Response& res) {
    std::function<void(const std::string&, httplib::Response&)> resume;
    bool refuse = false;
    bool known = false;
    {
      std::lock_guard lock(mutex_);
      resume = resume_;
      refuse = refuse_get_;
      known = sessions_.count(req.get_header_value("Mcp-Session-Id")) != 0;
      refuse = refuse || modern_;
      known = known || modern_;
    }
    const std::string last_event_id = req.get_header_value("Last-Event-ID");
    if (!known) {
      res.status = 404;
    } else if (refuse) {
      res.status = 405;
    } else if (!last_event_id.empty() && resume) {
      resume(last_event_id, res);
    } else {
      auto channel = SseChannel::make();
      channel->attach(res);
      std::lock_guard lock(mutex_);
      get_streams_.push_back(channel);
    }
    record({"GET", req.headers, json(), res.status == -1 ? 200 : res.status});
    cv_.notify_all();
  }

  HttpTestServer http_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Received> received_;
  std::set<std::string> sessions_;
  int session_counter_ = 0;
  RequestHandler handler_;
  Fault fault_ = Fault::none;
  bool refuse_get_ = false;
  bool modern_ = false;
  std::function<void(const std::string&, httplib::Response&)> resume_;
  std::vector<std::shared_ptr<SseChannel>> get_streams_;
};

bool is_get(const Received& r) { return r.method == "GET"; }

class StreamableHttpTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server.start()); }

  std::unique_ptr<Client> make_client(StreamableHttpOptions transport_options = {},
                                      std::string version = "2025-11-25") {
    transport_options.logger = log.logger();
    auto transport =
        std::make_unique<StreamableHttpTransport>(server.url(), std::move(transport_options));
    transport_ = transport.get();
    ClientOptions options;
    options.protocol_version = std::move(version);
    options.request_timeout = 10s;
    options.logger = log.logger();
    return std::make_unique<Client>(std::move(transport), std::move(options));
  }

  // A request handler that opens an SSE answer and hands the stream to the test.
  std::future<std::pair<json, std::shared_ptr<SseChannel>>> stream_next_request(
      const std::string& first_event) {
    auto promise = std::make_shared<std::promise<std::pair<json, std::shared_ptr<SseChannel>>>>();
    auto future = promise->get_future();
    server.on_request([promise, first_event](const json& request, httplib::Response& res) {
      auto channel = SseChannel::make();
      channel->attach(res);
      channel->push(first_event);
      promise->set_value({request, channel});
    });
    return future;
  }

  FakeMcpServer server;
  LogCapture log;
  StreamableHttpTransport* transport_ = nullptr;
};

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
  auto next = stream_next_request(": working\n\n");
  auto call = std::async(std::launch::async, [&] {
    return client->request("tools/call", {{"name", "x"}}, 200ms);
  });
  auto [request, channel] = next.get();
  try {
    call.get();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::timeout);
  }
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

// ---- the 2026-07-28 binding ----

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
  transport.start([](json) {}, [](std::string) {});
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
  auto next = stream_next_request(": working\n\n");
  auto call = std::async(std::launch::async, [&] {
    return client->request("tools/call", {{"name", "x"}}, 200ms);
  });
  auto [request, channel] = next.get();
  try {
    call.get();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::timeout);
  }
  EXPECT_TRUE(channel->wait_gone());  // closing the stream is the cancellation
  client->close();
  EXPECT_EQ(server.count([](const Received& r) { return r.is_method("notifications/cancelled"); }),
            0u);
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
