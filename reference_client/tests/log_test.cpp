#include "mcp/log.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace mcp {
namespace {

// Runs `body` with fd 2 redirected into a pipe and returns what it wrote.
template <class Body>
std::string capture_stderr(Body body) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(fds[1], STDERR_FILENO);
  body();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(fds[1]);
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  ::close(fds[0]);
  return text;
}

TEST(Log, LevelNames) {
  EXPECT_EQ(to_string(LogLevel::debug), "debug");
  EXPECT_EQ(to_string(LogLevel::warning), "warning");
}

TEST(Log, StderrLoggerWritesPrefixedLinesAtOrAboveItsLevel) {
  const Logger logger = stderr_logger("x: ", LogLevel::info);
  const std::string text = capture_stderr([&] {
    logger(LogLevel::debug, "hidden");
    logger(LogLevel::warning, "shown");
  });
  EXPECT_EQ(text, "x: warning: shown\n");
}

}  // namespace
}  // namespace mcp
