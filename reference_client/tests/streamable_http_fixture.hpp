// A fake Streamable HTTP server at /mcp and the fixture of the Streamable HTTP transport's
// tests (streamable_http_*_test.cpp): a client on the transport, the server's log of what it
// received.
#pragma once

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <set>

#include "http_test_server.hpp"
#include "mcp/client.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/streamable_http_transport.hpp"
#include "test_support.hpp"

namespace mcp::test {

using namespace std::chrono_literals;
using nlohmann::json;

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

inline std::string sse_event(const json& message, const std::string& prefix = "") {
  return prefix + "data: " + message.dump() + "\n\n";
}

inline json response(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

inline json ping(const json& id) { return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}}; }

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

inline bool is_get(const Received& r) { return r.method == "GET"; }

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

  // A tools/call with a 200 ms timeout whose POST stream only says it is working: the request
  // and its stream, once the call has failed with errc::timeout.
  std::pair<json, std::shared_ptr<SseChannel>> time_out_a_call(Client& client) {
    auto next = stream_next_request(": working\n\n");
    auto call = std::async(std::launch::async, [&] {
      return client.request("tools/call", {{"name", "x"}}, 200ms);
    });
    auto streamed = next.get();
    try {
      call.get();
      ADD_FAILURE() << "the call did not time out";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::timeout);
    }
    return streamed;
  }

  FakeMcpServer server;
  LogCapture log;
  StreamableHttpTransport* transport_ = nullptr;
};

}  // namespace mcp::test
