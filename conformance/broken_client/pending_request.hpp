// The requests the broken client has in flight on a connection with a reader thread (stdio,
// legacy SSE), one entry per id: the reader offers each server message, every caller waits
// for its own outcome. With one-pending-slot there is a single entry, taken by the newest
// request: an earlier call loses its answer or gets another's.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "connection.hpp"
#include "faults.hpp"

namespace broken {

class PendingRequests {
 public:
  // What the reader does with a server message after offering it.
  enum class Next { Done, Answer, StopReading };

  // A new request is in flight.
  void begin(int id, const std::string& method) {
    const std::lock_guard lock(mutex_);
    if (has("one-pending-slot")) slots_.clear();
    slots_[key(id)] = Slot{id, method, std::nullopt, std::nullopt};
  }

  // Offers a server message: a response (matched by id and JSON type; with
  // collision-as-result by id alone), a message that fails the requests in flight, a request
  // that stops the reader (idle-request-kills-reader), or something for the reader to answer.
  Next offer(const json& message) {
    const std::lock_guard lock(mutex_);
    if (kills_idle_reader(message, slots_.empty() ? "" : "request")) return Next::StopReading;
    if (has("late-response-breaks-session") && !message.contains("method") &&
        message.contains("id") && message["id"].is_number_integer() &&
        abandoned_.count(message["id"].get<int>())) {
      return Next::StopReading;
    }
    for (auto& [k, slot] : slots_) {
      if (auto why = breaks_pending(message, slot.method)) {
        slot.failure = std::move(why);
        settled_.notify_all();
      }
    }
    if (message.contains("id")) {
      for (auto& [k, slot] : slots_) {
        const bool by_id_alone = has("collision-as-result") && message["id"] == json(slot.id);
        const bool response = !message.contains("method") && same_id(message["id"], json(slot.id));
        if (by_id_alone || response) {
          slot.response = message;
          settled_.notify_all();
          return Next::Done;
        }
      }
    }
    return message.contains("method") ? Next::Answer : Next::Done;
  }

  // The reader has stopped: nothing more can come.
  void end() {
    const std::lock_guard lock(mutex_);
    ended_ = true;
    settled_.notify_all();
  }

  // Waits up to `bound` for request `id`'s outcome: the result, or throws what went wrong
  // (TimedOut when the bound passed; the request is then abandoned).
  json wait(int id, Timeout bound) {
    std::unique_lock lock(mutex_);
    if (!settled_.wait_for(lock, bound, [&] { return settled_locked(id) || ended_; })) {
      abandoned_.insert(id);
      if (const auto it = slots_.find(key(id)); it != slots_.end() && it->second.id == id)
        slots_.erase(it);
      throw TimedOut(id, bound);
    }
    return outcome_locked(id);
  }

  // Request `id`'s outcome if there is one yet (single-threaded readers check after each line).
  std::optional<json> poll(int id) {
    const std::lock_guard lock(mutex_);
    if (!settled_locked(id)) return std::nullopt;
    return outcome_locked(id);
  }

 private:
  struct Slot {
    int id;
    std::string method;
    std::optional<json> response;
    std::optional<std::string> failure;  // what a server message did to the request
  };

  // one-pending-slot keeps every request under one key: whoever waits takes what lands there.
  static int key(int id) { return has("one-pending-slot") ? 0 : id; }

  static bool same_id(const json& a, const json& b) {
    if (a.is_string() || b.is_string()) return a.is_string() && b.is_string() && a == b;
    return a.is_number_integer() && b.is_number_integer() && a == b;
  }

  bool settled_locked(int id) const {
    const auto it = slots_.find(key(id));
    return it != slots_.end() && (it->second.response || it->second.failure);
  }

  json outcome_locked(int id) {
    const auto it = slots_.find(key(id));
    if (it == slots_.end()) throw std::runtime_error("connection closed");
    const Slot slot = std::move(it->second);
    slots_.erase(it);
    if (slot.failure) throw std::runtime_error(*slot.failure);
    if (!slot.response) throw std::runtime_error("connection closed");
    if (slot.response->contains("error"))
      throw std::runtime_error((*slot.response)["error"].dump());
    return slot.response->value("result", json::object());
  }

  std::mutex mutex_;
  std::condition_variable settled_;
  std::map<int, Slot> slots_;  // by id; one-pending-slot: the newest request only, under 0
  std::set<int> abandoned_;    // ids of requests it gave up waiting for
  bool ended_ = false;
};

}  // namespace broken
