#include "child_process.hpp"

#include "mcp/error.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <future>

namespace mcp::detail {
namespace {

using namespace std::chrono_literals;

class ChildProcessTest : public ::testing::Test {
 protected:
  void SetUp() override { null_ = ::open("/dev/null", O_RDWR | O_CLOEXEC); }
  void TearDown() override { ::close(null_); }
  int null_ = -1;
};

TEST_F(ChildProcessTest, ReportsTheExitCode) {
  std::promise<void> notified;
  ChildProcess child({MCP_TEST_SERVER, "--exit", "7"}, {}, null_, null_, null_,
                     [&] { notified.set_value(); });
  EXPECT_EQ(notified.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_GT(child.pid(), 0);
  ASSERT_TRUE(child.wait_for(10s));
  const auto status = child.exit_status();
  ASSERT_TRUE(status);
  EXPECT_FALSE(status->signaled);
  EXPECT_EQ(status->code, 7);
}

TEST_F(ChildProcessTest, ReportsTheSignalThatKilledIt) {
  ChildProcess child({MCP_TEST_SERVER, "--forever"}, {}, null_, null_, null_, {});
  EXPECT_FALSE(child.exit_status());
  child.send_signal(SIGTERM);
  ASSERT_TRUE(child.wait_for(10s));
  EXPECT_TRUE(child.exit_status()->signaled);
  EXPECT_EQ(child.exit_status()->signal, SIGTERM);
  child.send_signal(SIGKILL);  // reaped: a no-op, never a signal to a recycled pid
  EXPECT_EQ(child.exit_status()->signal, SIGTERM);
}

TEST_F(ChildProcessTest, FindsCommandsInPath) {
  ChildProcess child({"true"}, {}, null_, null_, null_, {});
  ASSERT_TRUE(child.wait_for(10s));
  EXPECT_EQ(child.exit_status()->code, 0);
}

TEST_F(ChildProcessTest, MissingExecutableIsASpawnError) {
  try {
    ChildProcess child({"/nonexistent/mcp-server"}, {}, null_, null_, null_, {});
    FAIL() << "spawned a missing executable";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::spawn_failed);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/mcp-server"), std::string::npos);
  }
  EXPECT_THROW(ChildProcess({}, {}, null_, null_, null_, {}), Error);
}

TEST_F(ChildProcessTest, ChildGetsDefaultSigpipeEvenIfWeIgnoreIt) {
  // The child writes to a pipe nobody reads: with default SIGPIPE it dies of the signal.
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ::close(fds[0]);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old {};
  sigaction(SIGPIPE, &ignore, &old);
  ChildProcess child({MCP_TEST_SERVER, "--line", "x"}, {}, null_, fds[1], null_, {});
  sigaction(SIGPIPE, &old, nullptr);
  ::close(fds[1]);
  ASSERT_TRUE(child.wait_for(10s));
  EXPECT_TRUE(child.exit_status()->signaled);
  EXPECT_EQ(child.exit_status()->signal, SIGPIPE);
}

}  // namespace
}  // namespace mcp::detail
