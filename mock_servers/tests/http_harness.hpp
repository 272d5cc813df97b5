// The HTTP host end to end, in process, for the HTTP server tests: a real HttpChannel on a free
// loopback port running the interpreter, driven by httplib clients. Every wait is bounded.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/interpreter.hpp"
#include "http/http_channel.hpp"
#include "test_support.hpp"

namespace mcpping::test::http {

inline constexpr auto kBound = std::chrono::seconds(10);
inline const Json kAcceptBoth = "application/json, text/event-stream";

// The server and the interpreter running the script, on their own thread.
class Harness {
 public:
  // `revision`: the run's (default 2025-11-25); a modern one serves the 2026-07-28 binding.
  explicit Harness(const Json& script, const std::string& transport = "streamable-http",
                   const Json& http = Json::object(),
                   const std::map<std::string, double>& timeouts = {},
                   const std::string& revision = {})
      : resolved_(make(script, transport, http, timeouts, revision)) {
    HttpOptions options;
    options.legacy = transport == "sse";
    options.modern = revision_is_modern(resolved_["revision"].get<std::string>());
    options.post_always_sse = resolved_["http"].value("post_responses", "auto") == "sse";
    options.deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(
                                          resolved_["timeouts"]["case_deadline_ms"].get<double>()));
    channel_ = std::make_unique<HttpChannel>(transcript_, options);
    channel_->start();
    run_ = std::async(std::launch::async, [this] {
      Interpreter interpreter(resolved_, *channel_, transcript_);
      return interpreter.run();
    });
  }
  ~Harness() {
    channel_->stop();
    if (run_.valid()) run_.wait_for(kBound);
  }

  int port() const { return channel_->port(); }
  // Waits (bounded) for the interpreter to end; its `end` reason.
  std::string finish() {
    if (run_.wait_for(kBound) != std::future_status::ready) return "still running";
    return run_.get();
  }
  std::vector<Json> records() const { return transcript_.records(); }
  HttpChannel& channel() { return *channel_; }

 private:
  static Json make(const Json& script, const std::string& transport, const Json& http,
                   const std::map<std::string, double>& timeouts, const std::string& revision) {
    auto r = make_resolved(script, timeouts, transport);
    if (!http.empty()) r["http"] = http;
    if (!revision.empty()) r["revision"] = revision;
    parse_resolved_script(r, "test");
    return r;
  }

  Json resolved_;
  Transcript transcript_;
  std::unique_ptr<HttpChannel> channel_;
  std::future<std::string> run_;
};

inline httplib::Headers headers(const std::string& session = {}, const std::string& version = {}) {
  httplib::Headers h{{"Accept", kAcceptBoth.get<std::string>()}};
  if (!session.empty()) h.emplace("Mcp-Session-Id", session);
  if (!version.empty()) h.emplace("MCP-Protocol-Version", version);
  return h;
}

inline Json initialize_request(const std::string& version = "2025-11-25") {
  return {{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "initialize"},
          {"params",
           {{"protocolVersion", version},
            {"capabilities", Json::object()},
            {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}};
}
inline const Json kInitialized = {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};

inline Json call_request(int id) {
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"method", "tools/call"},
          {"params", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}}}};
}

// Reads one streaming response (POST or GET) on its own thread; tests wait for bytes.
class StreamReader {
 public:
  StreamReader(int port, std::string method, std::string path, httplib::Headers hdrs,
               std::string body = {})
      : client_("127.0.0.1", port) {
    client_.set_read_timeout(10, 0);
    thread_ = std::thread([this, method = std::move(method), path = std::move(path),
                           hdrs = std::move(hdrs), body = std::move(body)] {
      httplib::Request req;
      req.method = method;
      req.path = path;
      req.headers = hdrs;
      if (!body.empty()) {
        req.body = body;
        req.set_header("Content-Type", "application/json");
      }
      req.response_handler = [this](const httplib::Response& res) {
        const std::lock_guard lock(mutex_);
        status_ = res.status;
        response_headers_ = res.headers;
        cv_.notify_all();
        return true;
      };
      req.content_receiver = [this](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
        const std::lock_guard lock(mutex_);
        bytes_.append(data, n);
        ++chunks_;
        cv_.notify_all();
        return true;
      };
      httplib::Response res;
      httplib::Error error = httplib::Error::Success;
      client_.send(req, res, error);
      const std::lock_guard lock(mutex_);
      ended_ = true;
      if (status_ == 0) status_ = res.status;
      if (bytes_.empty()) bytes_ = res.body;
      cv_.notify_all();
    });
  }
  ~StreamReader() {
    client_.stop();
    thread_.join();
  }
  // The bytes once they contain `text` (or whatever came within the bound).
  std::string wait_for(const std::string& text) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, kBound, [&] { return bytes_.find(text) != std::string::npos || ended_; });
    return bytes_;
  }
  std::string wait_end() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, kBound, [&] { return ended_; });
    return bytes_;
  }
  int status() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, kBound, [&] { return status_ != 0 || ended_; });
    return status_;
  }
  std::string header(const std::string& name) {
    status();
    const std::lock_guard lock(mutex_);
    const auto it = response_headers_.find(name);
    return it == response_headers_.end() ? std::string() : it->second;
  }

 private:
  httplib::Client client_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string bytes_;
  std::size_t chunks_ = 0;
  int status_ = 0;
  httplib::Headers response_headers_;
  bool ended_ = false;
};

// A simple client for one-shot requests.
struct Client {
  explicit Client(int port) : cli("127.0.0.1", port) { cli.set_read_timeout(10, 0); }
  httplib::Result post(const Json& body, const httplib::Headers& h,
                       const std::string& path = "/mcp") {
    return cli.Post(path.c_str(), h, body.dump(), "application/json");
  }
  httplib::Client cli;
};

// Initialize + initialized; returns the session id.
inline std::string handshake(Harness& h, const std::string& version = "2025-11-25") {
  Client c(h.port());
  auto init = c.post(initialize_request(version), headers());
  EXPECT_TRUE(init);
  if (!init) return {};
  EXPECT_EQ(init->status, 200);
  EXPECT_EQ(init->get_header_value("Content-Type"), "application/json");
  auto session = init->get_header_value("Mcp-Session-Id");
  EXPECT_FALSE(session.empty());
  auto ack = c.post(kInitialized, headers(session, version));
  EXPECT_TRUE(ack);
  if (ack) {
    EXPECT_EQ(ack->status, 202);
  }
  return session;
}

inline void delete_session(Harness& h, const std::string& session) {
  Client c(h.port());
  auto res = c.cli.Delete("/mcp", headers(session, "2025-11-25"));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

// The JSON data of every `data:` line in `bytes` that parses.
inline std::vector<Json> data_messages(const std::string& bytes) {
  std::vector<Json> out;
  std::size_t pos = 0;
  while ((pos = bytes.find("data: ", pos)) != std::string::npos) {
    const auto end = bytes.find('\n', pos);
    auto json = Json::parse(bytes.substr(pos + 6, end - pos - 6), nullptr, false);
    if (!json.is_discarded()) out.push_back(json);
    pos = end;
  }
  return out;
}

inline Json ping_frame(const std::string& id) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}};
}
inline Json pong(const std::string& id) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", Json::object()}};
}

inline Json expect_call() {
  return {{"expect", {{"method", "tools/call"}}}, {"as", "call"}, {"check", check_def("call")}};
}

// A POST written byte for byte, with exactly `header_lines` (each "Name: value"): httplib's
// client adds a Content-Type to every body, and some clients send none. With
// `declared_length`, the Content-Length says that and the client stops writing after `body`,
// as one that exits mid-request. Returns the status, 0 when there was no answer.
inline int raw_post(int port, const std::vector<std::string>& header_lines, const std::string& body,
                    std::optional<std::size_t> declared_length = std::nullopt) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval bound{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  std::string request = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const auto& line : header_lines) request += line + "\r\n";
  request += "Content-Length: " + std::to_string(declared_length.value_or(body.size())) +
             "\r\n\r\n" + body;
  std::string answer;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    if (declared_length) ::shutdown(fd, SHUT_WR);
    char chunk[4096];
    for (ssize_t n; (n = ::recv(fd, chunk, sizeof chunk, 0)) > 0;)
      answer.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  // "HTTP/1.1 202 Accepted"
  if (answer.rfind("HTTP/1.1 ", 0) != 0 || answer.size() < 12) return 0;
  return std::stoi(answer.substr(9, 3));
}

}  // namespace mcpping::test::http
