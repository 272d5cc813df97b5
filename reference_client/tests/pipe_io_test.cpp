#include "pipe_io.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <ctime>

namespace mcp::detail {
namespace {

using test::sigpipe_blocked;
using test::sigpipe_pending;

TEST(PipeIo, WritesEverything) {
  Pipe pipe;
  ASSERT_FALSE(write_all_without_sigpipe(pipe.write_end(), "hello\n"));
  char buffer[16] = {};
  ASSERT_EQ(::read(pipe.read_end(), buffer, sizeof buffer), 6);
  EXPECT_STREQ(buffer, "hello\n");
}

TEST(PipeIo, BrokenPipeIsAnErrorNotASignal) {
  // SIGPIPE keeps its default disposition here: if the write raised it, the test would die.
  Pipe pipe;
  pipe.close_read_end();
  const std::error_code error = write_all_without_sigpipe(pipe.write_end(), "pong\n");
  EXPECT_EQ(error, std::errc::broken_pipe);
  EXPECT_FALSE(sigpipe_pending());
  EXPECT_FALSE(sigpipe_blocked());  // the caller's mask is restored
}

TEST(PipeIo, ASigpipeThatWasAlreadyPendingIsLeftAlone) {
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, SIGPIPE);
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &only, &old);
  pthread_kill(pthread_self(), SIGPIPE);
  ASSERT_TRUE(sigpipe_pending());

  Pipe pipe;
  pipe.close_read_end();
  EXPECT_EQ(write_all_without_sigpipe(pipe.write_end(), "x"), std::errc::broken_pipe);
  EXPECT_TRUE(sigpipe_pending());
  EXPECT_TRUE(sigpipe_blocked());

  const timespec zero{0, 0};
  EXPECT_EQ(sigtimedwait(&only, nullptr, &zero), SIGPIPE);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

TEST(PipeIo, DataIsReadBeforeAWakeUp) {
  Pipe data;
  Pipe wake;
  ASSERT_EQ(::write(data.write_end(), "abc", 3), 3);
  ASSERT_EQ(::write(wake.write_end(), "w", 1), 1);
  char buffer[8];
  std::size_t n = 0;
  std::error_code error;
  ASSERT_EQ(read_or_wake(data.read_end(), wake.read_end(), buffer, sizeof buffer, n, error),
            ReadResult::data);
  EXPECT_EQ(std::string(buffer, n), "abc");
  EXPECT_EQ(read_or_wake(data.read_end(), wake.read_end(), buffer, sizeof buffer, n, error),
            ReadResult::woken);
  data.close_write_end();
  EXPECT_EQ(read_or_wake(data.read_end(), wake.read_end(), buffer, sizeof buffer, n, error),
            ReadResult::end_of_file);
}

}  // namespace
}  // namespace mcp::detail
