// An httplib::Server on 127.0.0.1, port 0, for the HTTP transport tests, and SseChannel, a
// response body the test writes SSE text into while the client reads it.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace mcp::test {

class HttpTestServer {
 public:
  HttpTestServer() {
    // Every open stream and idle keep-alive connection holds a worker (cpp-httplib 0.11).
    server_.new_task_queue = [] { return new httplib::ThreadPool(32); };
  }
  ~HttpTestServer() { stop(); }
  HttpTestServer(const HttpTestServer&) = delete;
  HttpTestServer& operator=(const HttpTestServer&) = delete;

  httplib::Server& server() { return server_; }

  // Binds a free port and serves on a thread of its own; set the handlers first.
  bool start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) return false;
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    return wait_running();
  }

  void stop() {
    if (!thread_.joinable()) return;
    // 0.11.4 has no wait_until_ready(), and stop() before is_running() is a no-op that
    // leaves listen_after_bind() running for ever.
    wait_running();
    server_.stop();
    thread_.join();
  }

  int port() const { return port_; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  bool wait_running() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!server_.is_running()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = -1;
};

// The body of one text/event-stream response: what push() writes reaches the client at once;
// close() ends the response after everything pushed.
class SseChannel : public std::enable_shared_from_this<SseChannel> {
 public:
  void attach(httplib::Response& response) {
    auto self = shared_from_this();
    response.set_chunked_content_provider(
        "text/event-stream",
        [self](size_t, httplib::DataSink& sink) { return self->provide(sink); },
        [self](bool) { self->mark_gone(); });
  }

  void push(std::string text) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(text));
    }
    cv_.notify_all();
  }

  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    cv_.notify_all();
  }

  // Waits (bounded) until the response is over: ended by close(), or the client went away.
  bool wait_gone(std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, limit, [&] { return gone_; });
  }

  static std::shared_ptr<SseChannel> make() { return std::shared_ptr<SseChannel>(new SseChannel); }

 private:
  SseChannel() = default;

  bool provide(httplib::DataSink& sink) {
    std::unique_lock lock(mutex_);
    // Wakes regularly so that a client that left and a stopping server are noticed.
    cv_.wait_for(lock, std::chrono::milliseconds(50), [&] { return !queue_.empty() || closed_; });
    while (!queue_.empty()) {
      const std::string text = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      if (!sink.write(text.data(), text.size())) return false;
      lock.lock();
    }
    if (closed_) {
      lock.unlock();
      sink.done();
      return true;
    }
    return sink.is_writable();
  }

  void mark_gone() {
    {
      std::lock_guard lock(mutex_);
      gone_ = true;
    }
    cv_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool closed_ = false;
  bool gone_ = false;
};

}  // namespace mcp::test
