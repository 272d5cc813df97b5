#include "conformance/mock_watch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "conformance/child_process.hpp"

namespace mcpping {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr milliseconds kLong{30000};  // a bound no passing test comes near

// A folder of its own for each test, removed afterwards.
class TestDir {
 public:
  TestDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("mcp-ping-mock-watch-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TestDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;
  operator const fs::path&() const { return path_; }

 private:
  fs::path path_;
};

void append(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::app | std::ios::binary);
  out << text;
}

const std::string kStart = R"({"kind":"start","t":0,"version":3})"
                           "\n";
const std::string kEnd = R"({"kind":"end","t":9,"reason":"eof"})"
                         "\n";

// A stand-in for a mock server: its command line names "mcp-mock-" and the folder, it writes
// mock.pid, then blocks until something writes to the folder's fifo (or a signal ends it).
class FakeMock {
 public:
  explicit FakeMock(const fs::path& dir) : dir_(dir) {
    if (::mkfifo((dir / "fifo").c_str(), 0600) != 0) throw std::runtime_error("mkfifo");
    process_.emplace(std::vector<std::string>{"/bin/sh", "-c",
                                              "echo $$ >\"$1/mock.pid\"; read line <\"$1/fifo\"",
                                              "mcp-mock-watch-test", dir.string()},
                     dir / "fake.stderr");
  }
  // Lets it exit: opening the fifo waits for its reader, closing gives it end of file.
  void release() const { ::close(::open((dir_ / "fifo").c_str(), O_WRONLY)); }
  BackgroundProcess& process() { return *process_; }

 private:
  fs::path dir_;
  std::optional<BackgroundProcess> process_;
};

TEST(MockWatch, TheEndRecordEndsTheWait) {
  const TestDir scratch;
  const fs::path& dir = scratch;
  append(dir / "transcript.jsonl", kStart);
  std::thread writer([&] {
    append(dir / "transcript.jsonl", R"({"kind":"event","t":1,"what":"the end is near"})"
                                     "\n");
    append(dir / "transcript.jsonl", kEnd);
  });
  const auto wait = wait_for_script_end(dir, kLong, kLong);
  writer.join();
  EXPECT_EQ(wait.end, ScriptEnd::kEnded);
}

TEST(MockWatch, AnEndRecordWrittenInPiecesIsSeenWhole) {
  const TestDir scratch;
  const fs::path& dir = scratch;
  append(dir / "transcript.jsonl", kStart + R"({"kind":"en)");
  std::thread writer([&] {
    append(dir / "transcript.jsonl", R"(d","t":9,"reason":"eof"})"
                                     "\n");
  });
  const auto wait = wait_for_script_end(dir, kLong, kLong);
  writer.join();
  EXPECT_EQ(wait.end, ScriptEnd::kEnded);
}

TEST(MockWatch, NoServerWithinTheStartBoundIsNeverStarted) {
  const TestDir scratch;
  const fs::path& dir = scratch;
  EXPECT_EQ(wait_for_script_end(dir, milliseconds(50), kLong).end, ScriptEnd::kNeverStarted);
}

TEST(MockWatch, AServerThatExitsWithoutAnEndRecordIsSeenExiting) {
  const TestDir scratch;
  const fs::path& dir = scratch;
  FakeMock mock(dir);
  std::thread releaser([&] { mock.release(); });
  const auto wait = wait_for_script_end(dir, kLong, kLong);
  releaser.join();
  EXPECT_EQ(wait.end, ScriptEnd::kServerExited);
  const auto outcome = mock.process().wait(kLong);
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(outcome->kind, ChildOutcome::Kind::kExited);
}

TEST(MockWatch, AServerStillRunningAfterTheRunBoundOverstaysAndIsStopped) {
  const TestDir scratch;
  const fs::path& dir = scratch;
  FakeMock mock(dir);
  EXPECT_EQ(wait_for_script_end(dir, kLong, milliseconds(100)).end, ScriptEnd::kOverstayed);
  ASSERT_TRUE(running_mock_pid(dir / "mock.pid").has_value());
  stop_mock_server(dir / "mock.pid", kLong, MockStop::kTerminateFirst);
  const auto outcome = mock.process().wait(kLong);
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(outcome->kind, ChildOutcome::Kind::kSignaled);
  EXPECT_EQ(outcome->signal, SIGTERM);
}

TEST(MockWatch, APidFileNamingAnotherProcessIsNotAMockServer) {
  const TestDir scratch;
  const fs::path& dir = scratch;
  append(dir / "mock.pid", std::to_string(::getpid()) + "\n");  // this test, not a mock
  EXPECT_FALSE(running_mock_pid(dir / "mock.pid").has_value());
  stop_mock_server(dir / "mock.pid", milliseconds(10), MockStop::kTerminateFirst);  // no-op
  append(dir / "transcript.jsonl", kStart + kEnd);
  EXPECT_EQ(wait_for_script_end(dir, kLong, kLong).end, ScriptEnd::kEnded);
}

TEST(MockWatch, AShutdownSignalInterruptsTheWait) {
  const TestDir scratch;
  const fs::path& dir = scratch;
  sigset_t before;
  ::pthread_sigmask(SIG_SETMASK, nullptr, &before);
  block_shutdown_signals();
  ::raise(SIGINT);  // pending for this thread until the wait reads it
  const auto wait = wait_for_script_end(dir, kLong, kLong);
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  EXPECT_EQ(wait.end, ScriptEnd::kInterrupted);
  EXPECT_EQ(wait.signal, SIGINT);
}

}  // namespace
}  // namespace mcpping
