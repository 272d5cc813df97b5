// What the HTTP host hands the interpreter: the client's messages and the transport's events,
// in arrival order (Channel::receive), until the input ends or the host stops.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "engine/channel.hpp"

namespace mcpping {

class HttpInbox {
 public:
  void push(Incoming in) {
    set([&] { queue_.push_back(std::move(in)); });
  }
  void push_event(const std::string& name, Json meta) {
    push(Incoming{Incoming::Kind::Event, name, 0, Clock::now(), std::move(meta)});
  }
  // The oldest message; else Interrupted once stopped, the input's end, or a Timeout.
  Incoming receive(Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    cv_.wait_until(lock, deadline, [&] { return !queue_.empty() || stopped_ || end_; });
    if (queue_.empty()) {
      const auto kind = end_       ? *end_
                        : stopped_ ? Incoming::Kind::Interrupted
                                   : Incoming::Kind::Timeout;
      return Incoming{kind, {}, 0, Clock::now()};
    }
    auto in = std::move(queue_.front());
    queue_.pop_front();
    return in;
  }
  void end_input(Incoming::Kind why) {
    set([&] { end_ = why; });
  }
  void stop() {
    set([&] { stopped_ = true; });
  }

 private:
  template <class F>
  void set(F change) {
    {
      const std::lock_guard lock(mutex_);
      change();
    }
    cv_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Incoming> queue_;
  std::optional<Incoming::Kind> end_;
  bool stopped_ = false;
};

}  // namespace mcpping
