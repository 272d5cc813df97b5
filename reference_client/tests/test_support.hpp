// Helpers shared by the reference client's tests: a thread-safe log capture.
#pragma once

#include "mcp/log.hpp"

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace mcp::test {

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
