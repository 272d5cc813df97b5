// The broken client over Streamable HTTP: each message its own POST, SSE answers parsed as
// they arrive, server requests answered by a separate POST, an optional GET stream. Without a
// fault it starts a new session when a request carrying its session id gets 404, resumes
// a POST's stream that ended before the response with GET and Last-Event-ID, and reconnects
// the GET stream the server closed the same way. In a modern
// session (2026-07-28) it has no session and adds the request metadata headers to each
// request POST (MCP-Protocol-Version, Mcp-Method, Mcp-Name), as the modern-* faults leave them.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "connection.hpp"
#include "faults.hpp"
#include "sse_events.hpp"

namespace broken {
namespace {

// pong-without-content-type: httplib's client labels every body (text/plain by default), so
// that POST is written by hand. Returns the status, 0 without an answer.
int post_unlabelled(const std::string& origin, const std::string& path,
                    const httplib::Headers& headers, const std::string& body) {
  const auto colon = origin.rfind(':');
  const int port = std::stoi(origin.substr(colon + 1));
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval bound{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  std::string request = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const auto& [name, value] : headers) request += name + ": " + value + "\r\n";
  request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  std::string answer;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    char chunk[4096];
    for (ssize_t n; answer.size() < 12 && (n = ::recv(fd, chunk, sizeof chunk, 0)) > 0;)
      answer.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (answer.rfind("HTTP/1.1 ", 0) != 0 || answer.size() < 12) return 0;
  return std::stoi(answer.substr(9, 3));
}

std::string base64(const std::string& bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t at = 0; at < bytes.size(); at += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - at);
    unsigned bits = 0;
    for (std::size_t k = 0; k < 3; ++k)
      bits = (bits << 8) | (k < n ? static_cast<unsigned char>(bytes[at + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k)
      out += k <= n ? kDigits[(bits >> (18 - 6 * k)) & 0x3F] : '=';
  }
  return out;
}

// The 2026-07-28 request metadata headers of a request POST, as the faults leave them.
void add_request_metadata(httplib::Headers& h, const std::string& method, const json& params) {
  if (has("modern-no-version-header") || has("modern-version-mismatch")) {
    h.erase("MCP-Protocol-Version");
    if (has("modern-version-mismatch")) h.emplace("MCP-Protocol-Version", "2025-11-25");
  }
  if (!has("modern-no-method-header")) {
    std::string value = method;
    if (has("modern-method-mismatch"))
      for (char& c : value) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    h.emplace("Mcp-Method", value);
  }
  const bool named = method == "tools/call" || method == "prompts/get";
  if (named && params.is_object() && params.contains("name") && params["name"].is_string() &&
      !has("modern-no-name-header")) {
    const std::string name = params["name"];
    h.emplace("Mcp-Name", has("modern-name-bare-base64") ? base64(name) : name);
  }
}

class HttpConnection : public Connection {
 public:
  HttpConnection(const std::string& url, std::string offered) : version_(std::move(offered)) {
    std::tie(origin_, path_) = split_url(url);
  }

  ~HttpConnection() override { close(); }

  json request(const std::string& method, const json& params,
               std::optional<Timeout> timeout) override {
    if (modern_session() && has("modern-get-stream") && !listener_) open_get_stream();
    if (method == "initialize") {
      if (has("early-get")) probe_get_stream();
      initialize_params_ = params;
    } else if (session_lost_) {
      // "When a client receives HTTP 404 in response to a request containing an
      // Mcp-Session-Id, it MUST start a new session": before the next request.
      renew_session();
    }
    if (session_ended_) throw std::runtime_error("the session ended");
    int status = 0;
    json result = send_request(method, params, status, timeout);
    if (status == 404 && method != "initialize" && session_lost_) {
      renew_session();
      result = send_request(method, params, status, timeout);
    }
    return result;
  }

  void notify(const std::string& method, const json& params) override {
    json frame = {{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.is_null()) frame["params"] = params;
    post(frame, true);  // its status does not matter here
    if (method == "notifications/initialized" && !has("no-get-stream")) open_get_stream();
  }

  // The early-get fault's probe: a GET before any session exists (the server refuses it).
  void probe_get_stream() {
    httplib::Client client(origin_);
    client.set_read_timeout(5, 0);
    client.Get(path_, {{"Accept", "text/event-stream"}});
  }

  void close() override {
    stop_get_stream();
    const auto session = session_id();
    if (!session.empty() && !closed_.exchange(true)) {
      httplib::Client client(origin_);
      client.Delete(path_, headers(true));
    }
  }

 private:
  // What came back for one POSTed request: its SSE stream or its body, the response, and why
  // the call fails when it does.
  struct PostAnswer {
    std::optional<json> response;
    std::string failure;
    SseEvents events;
    std::string plain;
    bool sse = false;
  };

  httplib::Request post_of(const std::string& method, const json& params, int id) {
    const json frame = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
    httplib::Request req;
    req.method = "POST";
    req.path = path_;
    req.headers = headers(method != "initialize");
    if (modern_session()) add_request_metadata(req.headers, method, params);
    req.headers.emplace("Content-Type", "application/json");
    req.body = frame.dump();
    return req;
  }

  // The events of the POST's stream, and of the stream resumed after it broke: a server
  // request is answered (or fails the call, by the faults), the response to `id` is kept.
  bool read_events(PostAnswer& into, const std::string& method, int id, const char* data,
                   std::size_t size) {
    std::vector<json> replies;  // batch-pongs: what this read answers, in one POST
    into.events.feed(data, size, [&](const std::string& type, const std::string& text) {
      if (type != "message") return;
      for (const auto& message : messages_in(text)) {
        if (message.contains("method")) {
          if (auto why = breaks_pending(message, method)) into.failure = *why;
          if (has("batch-pongs")) {
            if (json reply = reply_to(message); !reply.is_null()) replies.push_back(reply);
          } else if (!answer(message) && has("pong-failure-fails-call")) {
            into.failure = "the pong could not be delivered";
          }
        } else if (has("one-pending-slot")) {
          hand_to_current(message);
        } else if (message.contains("id") && message["id"] == json(id)) {
          into.response = message;
        }
      }
    });
    if (!replies.empty() && !deliver(json(replies)) && has("pong-failure-fails-call"))
      into.failure = "the pong could not be delivered";
    return into.failure.empty();
  }

  // One request POSTed, its answer (JSON or SSE) read; `status` is the HTTP status. `timeout`
  // bounds each read (default 10 s): a server that holds the answer longer is given up on.
  json send_request(const std::string& method, const json& params, int& status,
                    std::optional<Timeout> timeout) {
    set_pending(method);
    struct Done {
      HttpConnection& c;
      ~Done() { c.set_pending(""); }
    } done{*this};
    const int id = next_request_id(method, next_id_);
    if (has("one-pending-slot")) {
      const std::lock_guard lock(slot_mutex_);
      current_ = id;
    }
    httplib::Client client(origin_);
    const Timeout bound = timeout.value_or(std::chrono::seconds(10));
    client.set_read_timeout(bound);
    httplib::Request req = post_of(method, params, id);
    PostAnswer answer;
    req.response_handler = [&](const httplib::Response& res) {
      answer.sse = res.get_header_value("Content-Type").rfind("text/event-stream", 0) == 0;
      if (method == "initialize" && res.has_header("Mcp-Session-Id")) {
        const std::lock_guard lock(session_mutex_);
        session_ = res.get_header_value("Mcp-Session-Id");
        session_lost_ = false;
      }
      return true;
    };
    const auto read = [&](const char* data, std::size_t size) {
      return read_events(answer, method, id, data, size);
    };
    req.content_receiver = [&](const char* data, std::size_t size, std::uint64_t, std::uint64_t) {
      if (answer.sse) return read(data, size);
      answer.plain.append(data, size);
      return true;
    };
    const auto result = client.send(req);
    // The server ended the stream before the response, after an event with an id: resume it.
    if (result && answer.sse && !answer.response && answer.failure.empty() &&
        !answer.events.last_event_id().empty() && !has("no-resume"))
      resume(answer.events, read, bound);
    return result_of(method, id, answer, result, status, bound);
  }

  // The result of the request `id`, from what came back; throws why the call failed.
  json result_of(const std::string& method, int id, PostAnswer& answer,
                 const httplib::Result& result, int& status, Timeout bound) {
    auto& response = answer.response;
    if (!answer.failure.empty()) throw std::runtime_error(answer.failure);
    if (auto why = take_stray_failure()) throw std::runtime_error(*why);
    if (!result && result.error() == httplib::Error::Read && !response) throw TimedOut(id, bound);
    if (!result) throw std::runtime_error("POST failed: " + httplib::to_string(result.error()));
    status = result->status;
    if (status == 404 && method != "initialize") {
      saw_404();
      if (session_lost_) return json::object();  // request() starts a new session and retries
    }
    if (!answer.sse && has("sse-only-responses"))
      throw std::runtime_error("no SSE stream in the answer");
    if (answer.sse && method == "ping" && has("ping-json-only"))
      throw std::runtime_error("no JSON body in the answer to its ping");
    if (!answer.sse) response = json::parse(answer.plain, nullptr, false);
    if (has("one-pending-slot")) {
      if (!answer.sse && response->is_object()) hand_to_current(*response);
      response = take_handed(id);
    }
    if (!response || !response->is_object()) {
      throw std::runtime_error("no response (HTTP " + std::to_string(result->status) + ")");
    }
    if (response->contains("error")) throw std::runtime_error((*response)["error"].dump());
    if (method == "initialize") initialized((*response)["result"]);
    return response->value("result", json::object());
  }

  // The answer to initialize came: the negotiated version, and without
  // notifications/initialized, the GET stream right after it.
  void initialized(const json& result) {
    if (result.is_object() && result.contains("protocolVersion") &&
        result["protocolVersion"].is_string()) {
      const std::lock_guard lock(session_mutex_);
      negotiated_ = result["protocolVersion"].get<std::string>();
    }
    if (has("no-initialized") && !has("no-get-stream")) open_get_stream();
  }

  // "If the client wishes to resume after a disconnection ... it SHOULD issue an HTTP GET to
  // the MCP endpoint, and include the Last-Event-ID header", once "the given number of
  // milliseconds" of the retry field have passed (1 s without one).
  template <typename Read>
  void resume(const SseEvents& events, Read& read_events, Timeout bound) {
    if (!has("ignores-retry"))
      std::this_thread::sleep_for(std::chrono::milliseconds(events.retry_ms().value_or(1000)));
    httplib::Client client(origin_);
    client.set_read_timeout(bound);
    httplib::Headers h = headers(true);
    h.erase("Accept");
    h.emplace("Accept", "text/event-stream");
    if (!has("resume-without-last-event-id")) h.emplace("Last-Event-ID", events.last_event_id());
    client.Get(path_, h,
               [&](const char* data, std::size_t size) { return read_events(data, size); });
  }

  // A 404 to a request that carried the session id: the session is gone. The faults keep it
  // (ignores-404) or give up on it for good (pong-404-ends-session).
  void saw_404(bool carried_session = true) {
    if (!carried_session || session_id().empty()) return;
    if (has("pong-404-ends-session")) {
      session_ended_ = true;
    } else if (!has("ignores-404")) {
      session_lost_ = true;
    }
  }

  // initialize (without the old session id) and notifications/initialized again.
  void renew_session() {
    stop_get_stream();
    {
      const std::lock_guard lock(session_mutex_);
      session_.clear();
    }
    int status = 0;
    send_request("initialize", initialize_params_, status, std::nullopt);
    if (!has("no-initialized")) notify("notifications/initialized", json());
  }

  std::string session_id() const {
    const std::lock_guard lock(session_mutex_);
    return session_;
  }

  // The MCP-Protocol-Version header: the negotiated version (the offered one until then),
  // or, with a fault, another version the server supports.
  std::string version_header() const {
    const std::lock_guard lock(session_mutex_);
    std::string negotiated = negotiated_.empty() ? version_ : negotiated_;
    if (has("version-header-not-negotiated") && !negotiated_.empty())
      return negotiated == "2025-06-18" ? "2025-11-25" : "2025-06-18";
    return negotiated;
  }

  httplib::Headers headers(bool with_session) const {
    httplib::Headers h = {{"Accept", "application/json, text/event-stream"},
                          {"MCP-Protocol-Version", version_header()}};
    const auto session = session_id();
    if (with_session && !session.empty()) h.emplace("Mcp-Session-Id", session);
    return h;
  }

  // POSTs a message the client sends on its own; its HTTP status (0: no response).
  int post(const json& message, bool with_session,
           const std::string& content_type = "application/json", bool bare = false) {
    httplib::Client client(origin_);
    auto h = headers(with_session);
    if (bare) {
      h.erase("Accept");
      h.erase("MCP-Protocol-Version");
    }
    const auto result = client.Post(path_, h, message.dump(), content_type);
    return result ? result->status : 0;
  }

  // Replies to a server request; false when the reply could not be delivered.
  bool answer(const json& message) {
    const json reply = reply_to(message);
    if (reply.is_null()) return true;
    return deliver(reply);
  }

  // POSTs a reply (or, batch-pongs, an array of them) with the faults' headers.
  bool deliver(const json& body) {
    int status = 0;
    if (has("pong-without-content-type") || has("pong-unsupported-version")) {
      auto h = headers(!has("no-session-on-pong"));
      if (has("pong-unsupported-version")) {
        h.erase("MCP-Protocol-Version");
        h.emplace("MCP-Protocol-Version", "1999-01-01");
        h.emplace("Content-Type", "application/json");
      }
      status = post_unlabelled(origin_, path_, h, body.dump());
    } else {
      status = post(body, !has("no-session-on-pong"),
                    has("pong-text-content-type") ? "text/plain" : "application/json",
                    has("pong-without-headers"));
    }
    if (status == 404) saw_404(!has("no-session-on-pong"));
    if (status != 202) std::cerr << "mcp-broken-client: reply POST failed\n";
    return status == 202;
  }

  // one-pending-slot: whatever response a POST reads goes to the current request, the one
  // started last, and the slot is free again; with none current, it is dropped.
  void hand_to_current(const json& response) {
    const std::lock_guard lock(slot_mutex_);
    if (current_) handed_[*std::exchange(current_, std::nullopt)] = response;
  }

  std::optional<json> take_handed(int id) {
    const std::lock_guard lock(slot_mutex_);
    if (current_ == id) current_.reset();
    const auto it = handed_.find(id);
    if (it == handed_.end()) return std::nullopt;
    json response = std::move(it->second);
    handed_.erase(it);
    return response;
  }

  void set_pending(const std::string& method) {
    const std::lock_guard lock(pending_mutex_);
    pending_method_ = method;
    if (method.empty()) stray_failure_.reset();
  }

  // A server message on the GET stream while a request was in flight (stray-frame-fails-call).
  std::optional<std::string> take_stray_failure() {
    const std::lock_guard lock(pending_mutex_);
    return std::exchange(stray_failure_, std::nullopt);
  }

  // The GET stream's server message; false when the reader stops here.
  bool on_get_message(const json& message) {
    {
      const std::lock_guard lock(pending_mutex_);
      if (kills_idle_reader(message, pending_method_)) {
        session_ended_ = true;
        return false;
      }
      if (auto why = breaks_pending(message, pending_method_)) stray_failure_ = std::move(why);
    }
    answer(message);
    return true;
  }

  // The GET listening stream, on a thread of its own. When the server ends its response
  // without the client stopping it (2025-11-25: it "MAY close the connection (without
  // terminating the SSE stream)"), the client reconnects after the retry field's delay (1 s
  // without one) with the last event ID it received, as the faults leave it.
  void open_get_stream() {
    {
      const std::lock_guard lock(get_mutex_);
      get_done_ = false;
      get_stopping_ = false;
    }
    listener_ = std::make_unique<httplib::Client>(origin_);
    listener_->set_read_timeout(60, 0);
    get_thread_ = std::thread([this] {
      SseEvents events;
      bool reading = true;
      for (bool reconnected = false;; reconnected = true) {
        httplib::Headers h = headers(true);
        h.erase("Accept");
        h.emplace("Accept", "text/event-stream");
        if (reconnected && !events.last_event_id().empty() && !has("resume-without-last-event-id"))
          h.emplace("Last-Event-ID", events.last_event_id());
        // deaf-after-reconnect: the reconnected stream is read, its requests dropped.
        const bool deaf = reconnected && has("deaf-after-reconnect");
        const auto result = listener_->Get(path_, h, [&](const char* data, std::size_t size) {
          events.feed(data, size, [&](const std::string& type, const std::string& text) {
            if (type != "message" || !reading || deaf) return;
            for (const auto& message : messages_in(text))
              if (reading && message.contains("method")) reading = on_get_message(message);
          });
          return reading;
        });
        if (!reading || !result || result->status != 200 || has("get-no-reconnect")) break;
        const auto delay =
            std::chrono::milliseconds(has("ignores-retry") ? 0 : events.retry_ms().value_or(1000));
        std::unique_lock lock(get_mutex_);
        if (get_ended_.wait_for(lock, delay, [&] { return get_stopping_; })) break;
      }
      const std::lock_guard lock(get_mutex_);
      get_done_ = true;
      get_ended_.notify_all();
    });
  }

  void stop_get_stream() {
    if (listener_) {
      // stop() only shuts a socket that is already open: until the GET thread has ended,
      // keep stopping, so a GET that was just connecting cannot outlive the close.
      std::unique_lock lock(get_mutex_);
      get_stopping_ = true;
      get_ended_.notify_all();
      while (!get_done_) {
        listener_->stop();
        get_ended_.wait_for(lock, std::chrono::milliseconds(10), [&] { return get_done_; });
      }
    }
    if (get_thread_.joinable()) get_thread_.join();
    listener_.reset();
  }

  std::string origin_, path_;
  const std::string version_;  // offered in initialize
  json initialize_params_ = json::object();
  mutable std::mutex session_mutex_;
  std::string session_;          // guarded by session_mutex_
  std::string negotiated_;       // the initialize result's protocolVersion; guarded likewise
  std::atomic<int> next_id_{1};  // requests may start on several threads
  std::unique_ptr<httplib::Client> listener_;
  std::thread get_thread_;
  std::mutex get_mutex_;
  std::condition_variable get_ended_;  // the GET thread ended, or is told to stop
  bool get_done_ = false;
  bool get_stopping_ = false;  // stop_get_stream(): no reconnection any more
  std::atomic<bool> closed_{false};
  std::atomic<bool> session_ended_{false};  // pong-404-ends-session, idle-request-kills-reader
  std::atomic<bool> session_lost_{false};   // a 404 came: initialize again before the next
  std::mutex pending_mutex_;
  std::string pending_method_;  // the request in flight; "" for none
  std::optional<std::string> stray_failure_;
  std::mutex slot_mutex_;
  std::optional<int> current_;  // one-pending-slot: the request it believes is in flight
  std::map<int, json> handed_;  // one-pending-slot: responses handed to a request
};

}  // namespace

std::unique_ptr<Connection> connect_streamable_http(const std::string& url,
                                                    const std::string& revision) {
  return std::make_unique<HttpConnection>(url, revision);
}

}  // namespace broken
