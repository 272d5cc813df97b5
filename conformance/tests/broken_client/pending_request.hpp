// The one request the broken client has in flight on a connection with a reader thread
// (stdio, legacy SSE): the reader offers it every server message, the caller waits for the
// outcome.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "connection.hpp"
#include "faults.hpp"

namespace broken {

class PendingRequest {
 public:
  // What the reader does with a server message after offering it.
  enum class Next { Done, Answer, StopReading };

  // A new request is in flight.
  void begin(int id, const std::string& method) {
    const std::lock_guard lock(mutex_);
    id_ = id;
    method_ = method;
    response_.reset();
    failure_.reset();
  }

  // Offers a server message: the response (matched by id and JSON type; with
  // collision-as-result by id alone), a message that fails the request in flight, a request
  // that stops the reader (idle-request-kills-reader), or something for the reader to answer.
  Next offer(const json& message) {
    const std::lock_guard lock(mutex_);
    if (kills_idle_reader(message, method_)) return Next::StopReading;
    if (has("late-response-breaks-session") && !message.contains("method") &&
        message.contains("id") && message["id"].is_number_integer() &&
        abandoned_.count(message["id"].get<int>())) {
      return Next::StopReading;
    }
    if (auto why = breaks_pending(message, method_)) {
      failure_ = std::move(why);
      settled_.notify_all();
    }
    const bool by_id_alone =
        has("collision-as-result") && id_ && message.contains("id") && message["id"] == json(*id_);
    const bool response = !message.contains("method") && id_ && message.contains("id") &&
                          same_id(message["id"], json(*id_));
    if (by_id_alone || response) {
      response_ = message;
      settled_.notify_all();
      return Next::Done;
    }
    return message.contains("method") ? Next::Answer : Next::Done;
  }

  // The reader has stopped: nothing more can come.
  void end() {
    const std::lock_guard lock(mutex_);
    ended_ = true;
    settled_.notify_all();
  }

  // Waits up to `bound` for the outcome: the result, or throws what went wrong (TimedOut when
  // the bound passed; the request is then abandoned).
  json wait(Timeout bound) {
    std::unique_lock lock(mutex_);
    if (!settled_.wait_for(lock, bound, [&] { return response_ || failure_ || ended_; })) {
      const int id = id_.value_or(0);
      abandoned_.insert(id);
      clear_locked();
      throw TimedOut(id, bound);
    }
    return outcome_locked();
  }

  // The outcome if there is one yet (single-threaded readers check after each line).
  std::optional<json> poll() {
    const std::lock_guard lock(mutex_);
    if (!response_ && !failure_) return std::nullopt;
    return outcome_locked();
  }

 private:
  static bool same_id(const json& a, const json& b) {
    if (a.is_string() || b.is_string()) return a.is_string() && b.is_string() && a == b;
    return a.is_number_integer() && b.is_number_integer() && a == b;
  }

  json outcome_locked() {
    const auto failure = std::move(failure_);
    const auto response = std::move(response_);
    clear_locked();
    if (failure) throw std::runtime_error(*failure);
    if (!response) throw std::runtime_error("connection closed");
    if (response->contains("error")) throw std::runtime_error((*response)["error"].dump());
    return response->value("result", json::object());
  }

  void clear_locked() {
    id_.reset();
    method_.clear();
    response_.reset();
    failure_.reset();
  }

  std::mutex mutex_;
  std::condition_variable settled_;
  std::optional<int> id_;
  std::string method_;  // the request in flight; "" for none
  std::optional<json> response_;
  std::optional<std::string> failure_;  // what a server message did to the request in flight
  std::set<int> abandoned_;             // ids of requests it gave up waiting for
  bool ended_ = false;
};

}  // namespace broken
