// Helpers shared by the reference client's tests: a thread-safe log capture, SIGPIPE state.
#pragma once

#include "mcp/log.hpp"

#include <pthread.h>
#include <signal.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace mcp::test {

// Whether SIGPIPE is pending for this thread, and whether it is blocked.
inline bool sigpipe_pending() {
  sigset_t pending;
  sigpending(&pending);
  return sigismember(&pending, SIGPIPE) == 1;
}

inline bool sigpipe_blocked() {
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  return sigismember(&mask, SIGPIPE) == 1;
}

class LogCapture {
 public:
  Logger logger() {
    return [this](LogLevel, std::string_view message) {
      {
        std::lock_guard lock(mutex_);
        lines_.emplace_back(message);
      }
      cv_.notify_all();
    };
  }

  bool contains(const std::string& needle) const {
    std::lock_guard lock(mutex_);
    for (const auto& line : lines_) {
      if (line.find(needle) != std::string::npos) return true;
    }
    return false;
  }

  // Waits (bounded) until a line containing `needle` was logged.
  bool wait_for(const std::string& needle,
                std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, limit, [&] {
      for (const auto& line : lines_) {
        if (line.find(needle) != std::string::npos) return true;
      }
      return false;
    });
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
};

}  // namespace mcp::test
