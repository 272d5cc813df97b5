#include "mcp/stdio_transport.hpp"

#include "mcp/client.hpp"
#include "mcp/error.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

namespace mcp {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// Collects what the transport delivers, with bounded waits.
class Inbox {
 public:
  Transport::MessageHandler on_message() {
    return [this](json frame) {
      std::lock_guard lock(mutex_);
      frames_.push_back(std::move(frame));
      cv_.notify_all();
    };
  }
  Transport::CloseHandler on_closed() {
    return [this](std::string reason) {
      std::lock_guard lock(mutex_);
      closed_reason_ = std::move(reason);
      ++close_calls_;
      cv_.notify_all();
    };
  }
  std::optional<json> next(std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, limit, [&] { return !frames_.empty(); })) return std::nullopt;
    json frame = std::move(frames_.front());
    frames_.pop_front();
    return frame;
  }
  std::optional<std::string> wait_closed(std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, limit, [&] { return closed_reason_.has_value(); })) return std::nullopt;
    return closed_reason_;
  }
  int close_calls() const {
    std::lock_guard lock(mutex_);
    return close_calls_;
  }
  std::size_t pending() const {
    std::lock_guard lock(mutex_);
    return frames_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<json> frames_;
  std::optional<std::string> closed_reason_;
  int close_calls_ = 0;
};

class StdioTransportTest : public ::testing::Test {
 protected:
  StdioTransportOptions options() {
    StdioTransportOptions o;
    o.logger = log.logger();
    o.stdin_close_grace = 200ms;
    o.terminate_grace = 200ms;
    o.kill_grace = 5s;
    o.stderr_sink = [this](std::string_view line) {
      std::lock_guard lock(stderr_mutex);
      stderr_bytes += line.size() + 1;
      ++stderr_lines;
      stderr_cv.notify_all();
    };
    return o;
  }

  std::unique_ptr<StdioTransport> start(std::vector<std::string> args,
                                        std::optional<StdioTransportOptions> opts = {}) {
    args.insert(args.begin(), MCP_TEST_SERVER);
    auto transport =
        std::make_unique<StdioTransport>(StdioServerParameters{args, {}}, opts ? *opts : options());
    transport->start(inbox.on_message(), inbox.on_closed());
    return transport;
  }

  Inbox inbox;
  test::LogCapture log;
  std::mutex stderr_mutex;
  std::condition_variable stderr_cv;
  std::size_t stderr_bytes = 0;
  std::size_t stderr_lines = 0;
};

TEST_F(StdioTransportTest, SendsAndReceivesNewlineDelimitedFrames) {
  auto transport = start({"--echo-until-eof"});
  const json frame = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "x"}, {"params", {{"t", "a\nb"}}}};
  ASSERT_FALSE(transport->send(frame));
  EXPECT_EQ(inbox.next().value(), frame);
  transport->close();
  EXPECT_EQ(inbox.wait_closed().value(), "server closed its stdout");
  ASSERT_TRUE(transport->exit_status());
  EXPECT_FALSE(transport->exit_status()->signaled);  // exited on stdin EOF, no signal needed
  EXPECT_EQ(transport->exit_status()->code, 0);
  EXPECT_EQ(inbox.close_calls(), 1);
  EXPECT_EQ(transport->send(frame), errc::connection_closed);
}

TEST_F(StdioTransportTest, ChoppedAndCoalescedFramesArriveWhole) {
  auto transport =
      start({"--chopped", R"({"a":1})", "--line", "{\"b\":2}\n{\"c\":3}", "--forever"});
  EXPECT_EQ(inbox.next().value(), json({{"a", 1}}));
  EXPECT_EQ(inbox.next().value(), json({{"b", 2}}));
  EXPECT_EQ(inbox.next().value(), json({{"c", 3}}));
}

TEST_F(StdioTransportTest, BrokenPipeIsReportedAndSurvived) {
  auto transport = start({"--close-stdin", "--line", R"({"first":1})", "--read-line", "--forever"});
  // The server closed its stdin before writing this line.
  EXPECT_EQ(inbox.next().value(), json({{"first", 1}}));
  EXPECT_EQ(transport->send({{"jsonrpc", "2.0"}, {"id", 1}, {"result", json::object()}}),
            std::errc::broken_pipe);
  // Still alive (no SIGPIPE), and so is the transport.
  EXPECT_EQ(transport->send({{"again", true}}), std::errc::broken_pipe);
  transport->close();
  EXPECT_TRUE(inbox.wait_closed());
}

// True once `tid` sits in a write(2) that has not returned (the kernel's view, so no sleep
// decides it); false if that is not seen within the bound.
bool blocked_in_write(pid_t tid, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  const std::string path = "/proc/self/task/" + std::to_string(tid) + "/syscall";
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream file(path);
    long number = -1;
    if (file >> number && number == SYS_write) return true;
    std::this_thread::yield();
  }
  return false;
}

TEST_F(StdioTransportTest, ShutdownEndsAWriterBlockedOnAFullStdin) {
  // The server never reads: a frame larger than the pipe blocks its writer, which close()
  // must not wait for forever (it signals the server, whose exit fails the write).
  auto transport = start({"--line", R"({"ready":1})", "--forever"});
  ASSERT_TRUE(inbox.next());
  std::promise<pid_t> writer_tid;
  std::error_code write_error;
  std::thread writer([&] {
    writer_tid.set_value(static_cast<pid_t>(::syscall(SYS_gettid)));
    write_error = transport->send({{"big", std::string(1 << 20, 'x')}});
  });
  ASSERT_TRUE(blocked_in_write(writer_tid.get_future().get()));
  transport->close();
  writer.join();
  EXPECT_EQ(write_error, std::errc::broken_pipe);
  ASSERT_TRUE(transport->exit_status());
  EXPECT_EQ(transport->exit_status()->signal, SIGTERM);
  EXPECT_EQ(transport->send({{"after", true}}), errc::connection_closed);
}

TEST_F(StdioTransportTest, StderrFloodIsDrainedWhileStdoutFlows) {
  constexpr std::size_t kFlood = 10486 * 100;  // just over 1 MiB, in 100-byte lines
  auto transport =
      start({"--stderr-bytes", std::to_string(kFlood), "--line", R"({"after":1})", "--forever"});
  EXPECT_EQ(inbox.next().value(), json({{"after", 1}}));
  std::unique_lock lock(stderr_mutex);
  ASSERT_TRUE(stderr_cv.wait_for(lock, 10s, [&] { return stderr_bytes == kFlood; }));
  EXPECT_EQ(stderr_lines, kFlood / 100);
}

TEST_F(StdioTransportTest, OverlongLineIsDroppedAndTheNextLineDelivered) {
  auto opts = options();
  opts.max_line_bytes = 1024;
  auto transport = start({"--long-line", "100000", "--line", R"({"ok":1})", "--forever"}, opts);
  EXPECT_EQ(inbox.next().value(), json({{"ok", 1}}));
  EXPECT_TRUE(log.contains("dropped a stdout line of 100000 bytes"));
}

TEST_F(StdioTransportTest, NonJsonLineIsSkipped) {
  auto transport = start({"--line", "this is not json", "--line", R"({"ok":2})", "--forever"});
  EXPECT_EQ(inbox.next().value(), json({{"ok", 2}}));
  EXPECT_TRUE(log.contains("not JSON: this is not json"));
}

TEST_F(StdioTransportTest, ServerExitEndsTheConnection) {
  auto transport = start({"--line", R"({"last":1})", "--exit", "3"});
  EXPECT_EQ(inbox.next().value(), json({{"last", 1}}));
  EXPECT_TRUE(inbox.wait_closed());
  transport->close();
  EXPECT_EQ(transport->exit_status()->code, 3);
}

TEST_F(StdioTransportTest, ShutdownSendsSigtermWhenStdinEofIsIgnored) {
  auto transport = start({"--forever"});
  transport->close();
  ASSERT_TRUE(transport->exit_status());
  EXPECT_TRUE(transport->exit_status()->signaled);
  EXPECT_EQ(transport->exit_status()->signal, SIGTERM);
  EXPECT_TRUE(log.contains("sending SIGTERM"));
}

TEST_F(StdioTransportTest, ShutdownEscalatesToSigkillWhenSigtermIsIgnored) {
  auto transport = start({"--ignore-term", "--line", R"({"ready":1})", "--forever"});
  ASSERT_TRUE(inbox.next());  // SIGTERM is ignored from here on
  transport->close();
  ASSERT_TRUE(transport->exit_status());
  EXPECT_TRUE(transport->exit_status()->signaled);
  EXPECT_EQ(transport->exit_status()->signal, SIGKILL);
  EXPECT_TRUE(log.contains("sending SIGKILL"));
}

TEST_F(StdioTransportTest, MissingServerIsASpawnError) {
  StdioTransport transport(StdioServerParameters{{"/nonexistent/server"}, {}}, options());
  try {
    transport.start(inbox.on_message(), inbox.on_closed());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::spawn_failed);
  }
  transport.close();
  EXPECT_EQ(inbox.close_calls(), 0);
}

// The client over a real child process.

const std::string kInitializeResult =
    R"({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},)"
    R"("serverInfo":{"name":"t","version":"1"}}})";

std::unique_ptr<Client> make_client(std::vector<std::string> args, StdioTransportOptions opts,
                                    test::LogCapture& log) {
  args.insert(args.begin(), MCP_TEST_SERVER);
  ClientOptions options;
  options.logger = log.logger();
  options.request_timeout = 30s;
  return std::make_unique<Client>(
      std::make_unique<StdioTransport>(StdioServerParameters{args, {}}, std::move(opts)), options);
}

TEST_F(StdioTransportTest, ClientDeliversTheResultWhenThePongHitsABrokenPipe) {
  auto client =
      make_client({"--read-line", "--line", kInitializeResult, "--read-line", "--read-line",
                   "--close-stdin", "--line", R"({"jsonrpc":"2.0","id":2,"method":"ping"})",
                   "--line", R"({"jsonrpc":"2.0","id":2,"result":{"content":[]}})", "--forever"},
                  options(), log);
  client->connect();
  const json result = client->call_tool("echo", {{"text", "a"}});
  EXPECT_EQ(result, json({{"content", json::array()}}));
  EXPECT_TRUE(log.wait_for("dropped"));
  client->close();
}

TEST_F(StdioTransportTest, ClientCallFailsPromptlyWhenTheServerExitsMidRequest) {
  auto client = make_client(
      {"--read-line", "--line", kInitializeResult, "--read-line", "--read-line", "--exit", "4"},
      options(), log);
  client->connect();
  const auto started = std::chrono::steady_clock::now();
  try {
    client->call_tool("echo");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::connection_closed);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);  // long before the 30 s timeout
}

}  // namespace
}  // namespace mcp
