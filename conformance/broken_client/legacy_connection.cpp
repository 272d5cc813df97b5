// The broken client over the legacy HTTP+SSE transport (2024-11-05): one GET stream carries
// every server message, starting with the `endpoint` event that names where to POST.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "connection.hpp"
#include "faults.hpp"
#include "pending_request.hpp"
#include "sse_events.hpp"

namespace broken {
namespace {

class LegacyConnection : public Connection {
 public:
  explicit LegacyConnection(const std::string& url) {
    std::tie(origin_, stream_path_) = split_url(url);
    listener_ = std::make_unique<httplib::Client>(origin_);
    listener_->set_read_timeout(60, 0);
    reader_ = std::thread([this] { read_stream(stream_path_); });
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, kWait, [&] { return !endpoint_.empty() || stream_done_; }) ||
        endpoint_.empty()) {
      lock.unlock();
      close();
      throw std::runtime_error("no endpoint event on the SSE stream");
    }
  }

  ~LegacyConnection() override { close(); }

  json request(const std::string& method, const json& params,
               std::optional<Timeout> timeout) override {
    if (session_ended_) throw std::runtime_error("the session ended");
    const int id = next_request_id(method, next_id_);
    pending_.begin(id, method);
    if (post({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}) != 202)
      throw std::runtime_error("POST failed");
    return pending_.wait(id, timeout.value_or(kWait));
  }

  void notify(const std::string& method, const json& params) override {
    json frame = {{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.is_null()) frame["params"] = params;
    post(frame);
  }

  void close() override {
    // stop() only shuts a socket that is already open: keep stopping until the reader ends.
    std::unique_lock lock(mutex_);
    while (!stream_done_) {
      listener_->stop();
      changed_.wait_for(lock, std::chrono::milliseconds(10), [&] { return stream_done_; });
    }
    lock.unlock();
    if (reader_.joinable()) reader_.join();
  }

 private:
  void read_stream(const std::string& path) {
    SseEvents events;
    bool reading = true;
    listener_->Get(path, {{"Accept", "text/event-stream"}},
                   [&](const char* data, std::size_t size) {
                     events.feed(data, size, [&](const std::string& type, const std::string& text) {
                       if (reading) reading = on_event(type, text);
                     });
                     return reading;
                   });
    pending_.end();
    const std::lock_guard lock(mutex_);
    stream_done_ = true;
    changed_.notify_all();
  }

  // One event of the stream; false when the reader stops here.
  bool on_event(const std::string& type, const std::string& data) {
    if (type == "endpoint") {
      const std::lock_guard lock(mutex_);
      endpoint_ = data;
      changed_.notify_all();
      return true;
    }
    if (type != "message") return true;
    json batched = json::array();  // batch-pongs: the replies to one event, in one POST
    for (const auto& message : messages_in(data)) {
      const auto next = pending_.offer(message);
      if (next == PendingRequests::Next::StopReading) return false;
      if (next != PendingRequests::Next::Answer) continue;
      const json reply = reply_to(message);
      if (reply.is_null()) continue;
      if (has("batch-pongs")) {
        batched.push_back(reply);
      } else if (post(reply, has("pong-to-stream-url") ? stream_path_ : std::string()) == 404 &&
                 has("pong-404-ends-session")) {
        session_ended_ = true;
      }
    }
    if (!batched.empty()) post(batched);
    return true;
  }

  // POSTs a message to the endpoint (or to `path`); the HTTP status, 0 without an answer.
  int post(const json& message, std::string path = {}) {
    std::string target = std::move(path);
    if (target.empty()) {
      const std::lock_guard lock(mutex_);
      target = endpoint_;
    }
    httplib::Client client(origin_);
    const auto result = client.Post(target, message.dump(), "application/json");
    return result ? result->status : 0;
  }

  std::string origin_, stream_path_;
  std::unique_ptr<httplib::Client> listener_;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string endpoint_;
  bool stream_done_ = false;
  std::atomic<bool> session_ended_{false};  // pong-404-ends-session
  PendingRequests pending_;
  std::atomic<int> next_id_{1};  // requests may start on several threads
};

}  // namespace

std::unique_ptr<Connection> connect_legacy_sse(const std::string& url) {
  return std::make_unique<LegacyConnection>(url);
}

}  // namespace broken
