#include "sigpipe_guard.hpp"

#include "pipe_io.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <pthread.h>
#include <unistd.h>

namespace mcp::detail {
namespace {

using test::sigpipe_blocked;
using test::sigpipe_pending;

TEST(SigpipeGuard, AWriteToABrokenPipeInsideTheGuardDoesNotKill) {
  // The default disposition: a SIGPIPE that got through would end the test process.
  const auto previous = ::signal(SIGPIPE, SIG_DFL);
  Pipe pipe;
  pipe.close_read_end();
  {
    const SigpipeGuard guard;
    EXPECT_TRUE(sigpipe_blocked());
    EXPECT_EQ(::write(pipe.write_end(), "x", 1), -1);
    EXPECT_TRUE(sigpipe_pending());
  }
  EXPECT_FALSE(sigpipe_pending());  // consumed
  EXPECT_FALSE(sigpipe_blocked());  // the mask is restored
  ::signal(SIGPIPE, previous);
}

TEST(SigpipeGuard, KeepsASigpipeThatWasPendingBefore) {
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, SIGPIPE);
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &only, &old);
  pthread_kill(pthread_self(), SIGPIPE);
  { const SigpipeGuard guard; }
  EXPECT_TRUE(sigpipe_pending());
  EXPECT_TRUE(sigpipe_blocked());  // it was blocked before the guard, and stays so
  const timespec zero{0, 0};
  EXPECT_EQ(sigtimedwait(&only, nullptr, &zero), SIGPIPE);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace
}  // namespace mcp::detail
