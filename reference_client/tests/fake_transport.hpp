// An in-memory Transport for Client tests: records every send, lets the test inject frames as
// if the server wrote them, and fails chosen sends (by their 0-based index).
#pragma once

#include "mcp/transport.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mcp::test {

class FakeServer {
 public:
  // Answers a frame the client sent, synchronously (simulates a fast server), or nullopt.
  using Responder = std::function<std::optional<nlohmann::json>(const nlohmann::json& sent)>;

  void fail_send(std::size_t index) {
    std::lock_guard lock(mutex_);
    failing_.insert(index);
  }
  void set_responder(Responder responder) {
    std::lock_guard lock(mutex_);
    responder_ = std::move(responder);
  }

  // Every send attempt, failed ones included, waited for up to 10 s.
  std::optional<nlohmann::json> wait_sent(
      std::size_t index, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, limit, [&] { return sent_.size() > index; })) return std::nullopt;
    return sent_[index];
  }
  std::size_t sent_count() const {
    std::lock_guard lock(mutex_);
    return sent_.size();
  }

  // Delivers a frame to the client as the transport's reader would.
  void inject(const nlohmann::json& frame) {
    Transport::MessageHandler handler;
    {
      std::lock_guard lock(mutex_);
      handler = on_message_;
    }
    handler(frame);
  }
  // The transport reports a late delivery failure (or, with a null frame, a session event).
  void report_failure(const nlohmann::json& frame, const Error& error) {
    Transport::FailureHandler handler;
    {
      std::lock_guard lock(mutex_);
      handler = on_failure_;
    }
    if (handler) handler(frame, error);
  }
  // Every version the client passed to set_protocol_version().
  std::vector<std::string> protocol_versions() const {
    std::lock_guard lock(mutex_);
    return protocol_versions_;
  }

  // The server went away: the transport reports the end of the connection.
  void close_remote(const std::string& reason) { finish(reason); }

  bool closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }

 private:
  friend class FakeTransport;

  void finish(const std::string& reason) {
    Transport::CloseHandler handler;
    {
      std::lock_guard lock(mutex_);
      if (closed_ || !started_) {
        closed_ = true;
        return;
      }
      closed_ = true;
      handler = on_closed_;
    }
    handler(reason);
  }

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<nlohmann::json> sent_;
  std::set<std::size_t> failing_;
  Responder responder_;
  Transport::MessageHandler on_message_;
  Transport::CloseHandler on_closed_;
  Transport::FailureHandler on_failure_;
  std::vector<std::string> protocol_versions_;
  bool started_ = false;
  bool closed_ = false;
};

class FakeTransport final : public Transport {
 public:
  explicit FakeTransport(std::shared_ptr<FakeServer> server) : server_(std::move(server)) {}

  void start(MessageHandler on_message, CloseHandler on_closed) override {
    std::lock_guard lock(server_->mutex_);
    server_->on_message_ = std::move(on_message);
    server_->on_closed_ = std::move(on_closed);
    server_->started_ = true;
  }

  std::error_code send(const nlohmann::json& frame) override {
    FakeServer::Responder responder;
    {
      std::lock_guard lock(server_->mutex_);
      const std::size_t index = server_->sent_.size();
      server_->sent_.push_back(frame);
      server_->cv_.notify_all();
      if (server_->failing_.count(index) != 0) return std::make_error_code(std::errc::broken_pipe);
      if (server_->closed_) return std::make_error_code(std::errc::broken_pipe);
      responder = server_->responder_;
    }
    if (responder) {
      if (auto reply = responder(frame)) server_->inject(*reply);
    }
    return {};
  }

  void close() override { server_->finish("transport closed"); }

  void set_failure_handler(FailureHandler handler) override {
    std::lock_guard lock(server_->mutex_);
    server_->on_failure_ = std::move(handler);
  }
  void set_protocol_version(const std::string& version) override {
    std::lock_guard lock(server_->mutex_);
    server_->protocol_versions_.push_back(version);
  }

 private:
  std::shared_ptr<FakeServer> server_;
};

}  // namespace mcp::test
