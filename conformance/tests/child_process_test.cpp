#include "conformance/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace mcpping {
namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// SIGKILL is delivered asynchronously: the killed process may still be tearing down when
// run_child returns. Waits (bounded) for the process's exit event; true once it has exited.
bool exits_within(pid_t pid, std::chrono::milliseconds bound) {
  // Debian 12's <sys/pidfd.h> lacks extern "C", so the call goes through syscall().
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;  // already exited and reaped
  pollfd ready{fd, POLLIN, 0};
  const bool exited = ::poll(&ready, 1, static_cast<int>(bound.count())) == 1;
  ::close(fd);
  return exited;
}

SpawnSpec shell(const std::string& script,
                std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
  const auto dir = std::filesystem::temp_directory_path() / "mcp-ping-child-process-test";
  std::filesystem::create_directories(dir);
  SpawnSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  // Named per process: two checkouts may run this test at the same moment. Each process
  // removes its own files when it exits.
  struct RemoveOwnFiles {
    std::filesystem::path dir;
    std::string prefix;
    ~RemoveOwnFiles() {
      std::error_code ec;
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.path().filename().string().rfind(prefix, 0) == 0)
          std::filesystem::remove(entry.path(), ec);
      }
    }
  };
  static const RemoveOwnFiles cleanup{dir, std::to_string(::getpid()) + "-"};
  const auto name =
      std::to_string(::getpid()) + "-" + std::to_string(std::hash<std::string>{}(script));
  spec.stdout_file = dir / (name + ".out");
  spec.stderr_file = dir / (name + ".err");
  spec.deadline = deadline;
  spec.kill_grace = std::chrono::milliseconds(200);
  spec.output_drain = std::chrono::milliseconds(200);
  return spec;
}

TEST(ChildProcess, CapturesOutputAndExitStatus) {
  const auto spec = shell("echo out; echo err >&2; exit 3");
  const auto outcome = run_child(spec);
  EXPECT_EQ(outcome.kind, ChildOutcome::Kind::kExited);
  EXPECT_EQ(outcome.exit_code, 3);
  EXPECT_EQ(read_text(spec.stdout_file), "out\n");
  EXPECT_EQ(read_text(spec.stderr_file), "err\n");
  EXPECT_EQ(describe(outcome), "exit 3");
}

TEST(ChildProcess, PassesExtraEnvironment) {
  auto spec = shell("printf %s \"$MCP_TEST_VALUE\"");
  spec.extra_env = {{"MCP_TEST_VALUE", "a b\"c"}};
  run_child(spec);
  EXPECT_EQ(read_text(spec.stdout_file), "a b\"c");
}

TEST(ChildProcess, TellsASignalFromAnExitStatus) {
  const auto outcome = run_child(shell("kill -PIPE $$"));
  EXPECT_EQ(outcome.kind, ChildOutcome::Kind::kSignaled);
  EXPECT_EQ(outcome.signal, SIGPIPE);
  EXPECT_EQ(describe(outcome), "killed by signal 13 (SIGPIPE)");
}

// The runner's libraries may ignore SIGPIPE; a child must still be able to die of it.
TEST(ChildProcess, ChildStartsWithSigpipeAtItsDefault) {
  ::signal(SIGPIPE, SIG_IGN);
  const auto spec = shell("grep SigIgn /proc/self/status");
  run_child(spec);
  ::signal(SIGPIPE, SIG_DFL);
  const std::string line = read_text(spec.stdout_file);
  ASSERT_FALSE(line.empty());
  // SIGPIPE is bit 12 (signal 13) of the mask.
  const unsigned long long mask = std::stoull(line.substr(line.find(':') + 1), nullptr, 16);
  EXPECT_EQ(mask & (1ull << 12), 0u) << line;
}

TEST(ChildProcess, DeadlineKillsTheWholeGroupEvenWhenTermIsIgnored) {
  const auto spec = shell(
      "trap '' TERM; sh -c 'trap \"\" TERM; while :; do sleep 1; done' & "
      "echo $! ; while :; do sleep 1; done",
      std::chrono::milliseconds(300));
  const auto outcome = run_child(spec);
  EXPECT_EQ(outcome.kind, ChildOutcome::Kind::kTimedOut);
  const std::string grandchild = read_text(spec.stdout_file);
  ASSERT_FALSE(grandchild.empty());
  const pid_t pid = std::stoi(grandchild);
  // It ignores SIGTERM and never exits by itself: only the group SIGKILL can end it.
  const bool killed = exits_within(pid, std::chrono::seconds(10));
  EXPECT_TRUE(killed) << "grandchild " << pid << " still runs:\n"
                      << read_text("/proc/" + std::to_string(pid) + "/status");
  if (!killed) ::kill(pid, SIGKILL);  // leave nothing behind, even when failing
}

// Boost.Process 1.81 left open in the child every descriptor below its own exec-error pipe.
// Among them were the pipe ends of a driver another case thread was starting at that moment:
// that case then waited out its output drain until this driver ended (2 s per case in a
// parallel run, and a failed pre-check took 2 s to stop the cases).
TEST(ChildProcess, RegressionAChildInheritsNoDescriptorButItsStdio) {
  const int runner_file = ::open("/dev/null", O_RDONLY);  // without O_CLOEXEC
  ASSERT_GE(runner_file, 3);
  const auto spec = shell("ls /proc/$$/fd; :");
  const auto outcome = run_child(spec);
  ::close(runner_file);
  EXPECT_EQ(outcome.kind, ChildOutcome::Kind::kExited);
  EXPECT_EQ(read_text(spec.stdout_file), "0\n1\n2\n") << "the runner's fd was " << runner_file;
}

TEST(ChildProcess, LeftoverChildrenAreKilledAfterTheDriverExits) {
  const auto outcome = run_child(shell("sleep 30 & exit 0"));
  EXPECT_EQ(outcome.kind, ChildOutcome::Kind::kExited);
  EXPECT_TRUE(outcome.group_killed_after_exit);
}

TEST(ChildProcess, OutputBeyondTheCapIsCountedNotKept) {
  auto spec = shell("head -c 100000 /dev/zero");
  spec.capture_cap = 1000;
  const auto outcome = run_child(spec);
  EXPECT_EQ(outcome.stdout_bytes, 100000u);
  const std::string kept = read_text(spec.stdout_file);
  EXPECT_LT(kept.size(), 1200u);
  EXPECT_NE(kept.find("output cut at 1000 of 100000 bytes"), std::string::npos);
}

TEST(ChildProcess, MissingProgramIsASpawnFailure) {
  SpawnSpec spec = shell("true");
  spec.argv = {"/nonexistent/driver"};
  const auto outcome = run_child(spec);
  EXPECT_EQ(outcome.kind, ChildOutcome::Kind::kSpawnFailed);
  EXPECT_NE(describe(outcome).find("/nonexistent/driver"), std::string::npos);
}

}  // namespace
}  // namespace mcpping
