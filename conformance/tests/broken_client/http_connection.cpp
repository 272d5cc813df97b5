// The broken client over Streamable HTTP: each message its own POST, SSE answers parsed as
// they arrive, server requests answered by a separate POST, an optional GET stream.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>

#include "connection.hpp"
#include "faults.hpp"
#include "sse_events.hpp"

namespace broken {
namespace {

class HttpConnection : public Connection {
 public:
  HttpConnection(const std::string& url, std::string revision) : revision_(std::move(revision)) {
    std::tie(origin_, path_) = split_url(url);
  }

  ~HttpConnection() override { close(); }

  json request(const std::string& method, const json& params) override {
    if (method == "initialize" && has("early-get")) probe_get_stream();
    if (session_ended_) throw std::runtime_error("the session ended");
    set_pending(method);
    struct Done {
      HttpConnection& c;
      ~Done() { c.set_pending(""); }
    } done{*this};
    const int id = next_request_id(method, next_id_);
    const json frame = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
    httplib::Client client(origin_);
    client.set_read_timeout(10, 0);
    httplib::Request req;
    req.method = "POST";
    req.path = path_;
    req.headers = headers(true);
    req.headers.emplace("Content-Type", "application/json");
    req.body = frame.dump();
    std::optional<json> response;
    std::string failure;
    SseEvents events;
    std::string plain;
    bool sse = false;
    req.response_handler = [&](const httplib::Response& res) {
      sse = res.get_header_value("Content-Type").rfind("text/event-stream", 0) == 0;
      if (method == "initialize" && res.has_header("Mcp-Session-Id")) {
        session_ = res.get_header_value("Mcp-Session-Id");
      }
      return true;
    };
    req.content_receiver = [&](const char* data, std::size_t size, std::uint64_t, std::uint64_t) {
      if (!sse) {
        plain.append(data, size);
        return true;
      }
      events.feed(data, size, [&](const std::string& type, const std::string& text) {
        if (type != "message") return;
        const json message = json::parse(text, nullptr, false);
        if (!message.is_object()) return;
        if (message.contains("method")) {
          if (auto why = breaks_pending(message, method)) failure = *why;
          if (!answer(message) && has("pong-failure-fails-call")) {
            failure = "the pong could not be delivered";
          }
        } else if (message.contains("id") && message["id"] == json(id)) {
          response = message;
        }
      });
      return failure.empty();
    };
    const auto result = client.send(req);
    if (!failure.empty()) throw std::runtime_error(failure);
    if (auto why = take_stray_failure()) throw std::runtime_error(*why);
    if (!result) throw std::runtime_error("POST failed: " + httplib::to_string(result.error()));
    if (!sse && has("sse-only-responses")) throw std::runtime_error("no SSE stream in the answer");
    if (!sse) response = json::parse(plain, nullptr, false);
    if (!response || !response->is_object()) {
      throw std::runtime_error("no response (HTTP " + std::to_string(result->status) + ")");
    }
    if (response->contains("error")) throw std::runtime_error((*response)["error"].dump());
    // Without notifications/initialized, the GET stream opens right after initialize.
    if (method == "initialize" && has("no-initialized") && !has("no-get-stream")) open_get_stream();
    return response->value("result", json::object());
  }

  void notify(const std::string& method) override {
    post({{"jsonrpc", "2.0"}, {"method", method}}, true);  // its status does not matter here
    if (method == "notifications/initialized" && !has("no-get-stream")) open_get_stream();
  }

  // The early-get fault's probe: a GET before any session exists (the server refuses it).
  void probe_get_stream() {
    httplib::Client client(origin_);
    client.set_read_timeout(5, 0);
    client.Get(path_, {{"Accept", "text/event-stream"}});
  }

  void close() override {
    if (listener_) {
      // stop() only shuts a socket that is already open: until the GET thread has ended,
      // keep stopping, so a GET that was just connecting cannot outlive the close.
      std::unique_lock lock(get_mutex_);
      while (!get_done_) {
        listener_->stop();
        get_ended_.wait_for(lock, std::chrono::milliseconds(10), [&] { return get_done_; });
      }
    }
    if (get_thread_.joinable()) get_thread_.join();
    if (!session_.empty() && !closed_.exchange(true)) {
      httplib::Client client(origin_);
      client.Delete(path_, headers(true));
    }
  }

 private:
  httplib::Headers headers(bool with_session) const {
    httplib::Headers h = {{"Accept", "application/json, text/event-stream"},
                          {"MCP-Protocol-Version", revision_}};
    if (with_session && !session_.empty()) h.emplace("Mcp-Session-Id", session_);
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
    const int status = post(reply, !has("no-session-on-pong"),
                            has("pong-text-content-type") ? "text/plain" : "application/json",
                            has("pong-without-headers"));
    if (status == 404 && has("pong-404-ends-session")) session_ended_ = true;
    if (status != 202) std::cerr << "mcp-broken-client: reply POST failed\n";
    return status == 202;
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

  void open_get_stream() {
    listener_ = std::make_unique<httplib::Client>(origin_);
    listener_->set_read_timeout(60, 0);
    get_thread_ = std::thread([this] {
      SseEvents events;
      httplib::Headers h = headers(true);
      h.erase("Accept");
      h.emplace("Accept", "text/event-stream");
      bool reading = true;
      listener_->Get(path_, h, [&](const char* data, std::size_t size) {
        events.feed(data, size, [&](const std::string& type, const std::string& text) {
          if (type != "message" || !reading) return;
          const json message = json::parse(text, nullptr, false);
          if (message.is_object() && message.contains("method")) reading = on_get_message(message);
        });
        return reading;
      });
      const std::lock_guard lock(get_mutex_);
      get_done_ = true;
      get_ended_.notify_all();
    });
  }

  std::string origin_, path_, revision_, session_;
  int next_id_ = 1;
  std::unique_ptr<httplib::Client> listener_;
  std::thread get_thread_;
  std::mutex get_mutex_;
  std::condition_variable get_ended_;
  bool get_done_ = false;
  std::atomic<bool> closed_{false};
  std::atomic<bool> session_ended_{false};  // pong-404-ends-session, idle-request-kills-reader
  std::mutex pending_mutex_;
  std::string pending_method_;  // the request in flight; "" for none
  std::optional<std::string> stray_failure_;
};

}  // namespace

std::unique_ptr<Connection> connect_streamable_http(const std::string& url,
                                                    const std::string& revision) {
  return std::make_unique<HttpConnection>(url, revision);
}

}  // namespace broken
