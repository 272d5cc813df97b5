// The broken client over Streamable HTTP: each message its own POST, SSE answers parsed as
// they arrive, server requests answered by a separate POST, an optional GET stream.
#include <httplib.h>

#include <atomic>
#include <iostream>
#include <mutex>
#include <optional>
#include <regex>
#include <stdexcept>
#include <thread>

#include "connection.hpp"
#include "faults.hpp"

namespace broken {
namespace {

// Splits an SSE byte stream into the data of its events (data lines joined with '\n').
class SseEvents {
 public:
  template <typename OnData>
  void feed(const char* bytes, std::size_t size, OnData&& on_data) {
    buffer_.append(bytes, size);
    for (std::size_t nl; (nl = buffer_.find('\n')) != std::string::npos;) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) {
        if (!data_.empty()) on_data(data_);
        data_.clear();
        has_data_ = false;
      } else if (line.rfind("data:", 0) == 0) {
        std::string value = line.substr(5);
        if (!value.empty() && value[0] == ' ') value.erase(0, 1);
        data_ += (has_data_ ? "\n" : "") + value;
        has_data_ = true;
      }
    }
  }

 private:
  std::string buffer_, data_;
  bool has_data_ = false;
};

class HttpConnection : public Connection {
 public:
  HttpConnection(const std::string& url, std::string revision) : revision_(std::move(revision)) {
    static const std::regex kUrl(R"(^(http://[^/]+)(/.*)$)");
    std::smatch parts;
    if (!std::regex_match(url, parts, kUrl)) throw std::runtime_error("bad URL " + url);
    origin_ = parts[1];
    path_ = parts[2];
  }

  ~HttpConnection() override { close(); }

  json request(const std::string& method, const json& params) override {
    const int id = next_id_++;
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
      events.feed(data, size, [&](const std::string& text) {
        const json message = json::parse(text, nullptr, false);
        if (!message.is_object()) return;
        if (message.contains("method")) {
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
    if (!result) throw std::runtime_error("POST failed: " + httplib::to_string(result.error()));
    if (!sse) response = json::parse(plain, nullptr, false);
    if (!response || !response->is_object()) {
      throw std::runtime_error("no response (HTTP " + std::to_string(result->status) + ")");
    }
    if (response->contains("error")) throw std::runtime_error((*response)["error"].dump());
    return response->value("result", json::object());
  }

  void notify(const std::string& method) override {
    post({{"jsonrpc", "2.0"}, {"method", method}}, true);
    if (method == "notifications/initialized" && !has("no-get-stream")) open_get_stream();
  }

  void close() override {
    if (listener_) listener_->stop();
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

  // POSTs a message the client sends on its own; true when the server took it (202).
  bool post(const json& message, bool with_session) {
    httplib::Client client(origin_);
    const auto result =
        client.Post(path_, headers(with_session), message.dump(), "application/json");
    return result && result->status == 202;
  }

  // Replies to a server request; false when the reply could not be delivered.
  bool answer(const json& message) {
    const json reply = reply_to(message);
    if (reply.is_null()) return true;
    const bool delivered = post(reply, !has("no-session-on-pong"));
    if (!delivered) std::cerr << "mcp-broken-client: reply POST failed\n";
    return delivered;
  }

  void open_get_stream() {
    listener_ = std::make_unique<httplib::Client>(origin_);
    listener_->set_read_timeout(60, 0);
    get_thread_ = std::thread([this] {
      SseEvents events;
      httplib::Headers h = headers(true);
      h.erase("Accept");
      h.emplace("Accept", "text/event-stream");
      listener_->Get(path_, h, [&](const char* data, std::size_t size) {
        events.feed(data, size, [&](const std::string& text) {
          const json message = json::parse(text, nullptr, false);
          if (message.is_object() && message.contains("method")) answer(message);
        });
        return true;
      });
    });
  }

  std::string origin_, path_, revision_, session_;
  int next_id_ = 1;
  std::unique_ptr<httplib::Client> listener_;
  std::thread get_thread_;
  std::atomic<bool> closed_{false};
};

}  // namespace

std::unique_ptr<Connection> connect_streamable_http(const std::string& url,
                                                    const std::string& revision) {
  return std::make_unique<HttpConnection>(url, revision);
}

}  // namespace broken
