#include "mcp/log.hpp"

#include <unistd.h>

#include <cerrno>

namespace mcp {

std::string_view to_string(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warning:
      return "warning";
    case LogLevel::error:
      return "error";
  }
  return "?";
}

Logger stderr_logger(std::string prefix, LogLevel min_level) {
  return [prefix = std::move(prefix), min_level](LogLevel level, std::string_view message) {
    if (level < min_level) return;
    std::string line;
    line.reserve(prefix.size() + message.size() + 12);
    line.append(prefix).append(to_string(level)).append(": ").append(message).push_back('\n');
    // One write(2) per line: atomic enough for concurrent loggers, no iostream locking.
    const char* data = line.data();
    std::size_t left = line.size();
    while (left > 0) {
      const ssize_t n = ::write(STDERR_FILENO, data, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      data += n;
      left -= static_cast<std::size_t>(n);
    }
  };
}

}  // namespace mcp
