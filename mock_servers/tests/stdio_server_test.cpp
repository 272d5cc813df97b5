// Spawns the real mcp-mock-stdio-server and plays a small MCP client over pipes.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <optional>

#include "stdio/stdio_channel.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

using namespace std::chrono_literals;

constexpr auto kBound = 10s;  // every wait in these tests ends by then

class ServerProcess {
 public:
  explicit ServerProcess(const std::vector<std::string>& args) {
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC))
      throw std::runtime_error("pipe2");
    std::vector<std::string> argv_text{MCP_MOCK_STDIO_SERVER};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      ::signal(SIGPIPE, SIG_DFL);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    stdin_ = in[1];
    stdout_ = out[0];
    stderr_ = err[0];
    pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
  }
  ~ServerProcess() {
    if (!exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    for (int fd : {stdin_, stdout_, stderr_, pidfd_}) {
      if (fd >= 0) ::close(fd);
    }
  }

  pid_t pid() const { return pid_; }

  // Returns errno of a failed write, 0 on success.
  int write_line(const std::string& line) { return write_bytes(line + "\n"); }
  int write_bytes(const std::string& data) {
    std::string_view rest = data;
    while (!rest.empty()) {
      const auto n = ::write(stdin_, rest.data(), rest.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    return 0;
  }
  int send(const Json& message) { return write_line(message.dump()); }

  // The next line the server writes to stdout, or nullopt at EOF or after kBound.
  std::optional<std::string> read_line() {
    return read_until([this]() -> std::optional<std::string> {
      const auto newline = buffer_.find('\n');
      if (newline == std::string::npos) return std::nullopt;
      auto line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    });
  }
  // Reads until `take` returns what it wanted from buffer_, or nullopt at EOF or after kBound.
  template <typename Take>
  std::optional<std::string> read_until(Take take) {
    const auto deadline = Clock::now() + kBound;
    for (;;) {
      if (auto taken = take()) return taken;
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return std::nullopt;
      pollfd fd{stdout_, POLLIN, 0};
      if (::poll(&fd, 1, static_cast<int>(left)) <= 0) continue;
      char chunk[4096];
      const auto n = ::read(stdout_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  std::optional<Json> read_message() {
    auto line = read_line();
    if (!line) return std::nullopt;
    return Json::parse(*line);
  }

  void close_stdin() {
    ::close(stdin_);
    stdin_ = -1;
  }
  void close_stdout() {
    ::close(stdout_);
    stdout_ = -1;
  }

  // The exit status, or nullopt if the server is still running after kBound.
  std::optional<int> wait_exit() {
    pollfd fd{pidfd_, POLLIN, 0};
    if (::poll(&fd, 1, static_cast<int>(std::chrono::milliseconds(kBound).count())) <= 0)
      return std::nullopt;
    int status = 0;
    ::waitpid(pid_, &status, 0);
    exited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1, stderr_ = -1, pidfd_ = -1;
  bool exited_ = false;
  std::string buffer_;
};

class StdioServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::signal(SIGPIPE, SIG_IGN);  // the close_stdin test writes into a closed pipe
    dir_ = std::filesystem::temp_directory_path() /
           ("mcp-stdio-server-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::string> args_for(const Json& resolved) {
    const auto script = dir_ / "script.json";
    std::ofstream(script) << resolved.dump();
    return {"--script", script.string(), "--evidence-dir", (dir_ / "evidence").string()};
  }

  std::vector<Json> transcript() {
    std::vector<Json> records;
    std::ifstream in(dir_ / "evidence" / "transcript.jsonl");
    for (std::string line; std::getline(in, line);) records.push_back(Json::parse(line));
    return records;
  }

  // initialize / response / initialized, as a client does it.
  static void handshake(ServerProcess& server) {
    ASSERT_EQ(
        server.send(Json::parse(
            R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})")),
        0);
    const auto response = server.read_message();
    ASSERT_TRUE(response);
    ASSERT_EQ((*response)["id"], Json(0));
    ASSERT_EQ(server.send(Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})")),
              0);
  }

  std::filesystem::path dir_;
};

Json pinging_script(const Json& extra_steps_before_send = Json::array(),
                    const Json& send_extra = Json::object()) {
  Json script = Json::array({Json{{"handshake", Json::object()}}});
  for (const auto& s : extra_steps_before_send) script.push_back(s);
  Json send{{"send", Json::parse(R"({"jsonrpc":"2.0","id":"srv-1","method":"ping"})")},
            {"label", "ping"}};
  send.update(send_extra);
  script.push_back(send);
  script.push_back(Json{{"expect_response", "ping"}, {"check", test::check_def("pong")}});
  script.push_back(Json{{"serve_defaults", Json::object()}});
  return test::make_resolved(script, {{"case_deadline_ms", 20000}});
}

TEST_F(StdioServerTest, PlaysAWholeSessionOverRealPipes) {
  const auto s = load_scenario(
      std::filesystem::path(MCP_FIXTURES_DIR) / "scenarios/ping/while-awaiting.json",
      "ping/while-awaiting", test::fixture_defaults(), test::fixture_refs(), validate_script);
  ServerProcess server(args_for(test::make_resolved(s.script, {{"case_deadline_ms", 20000}})));
  handshake(server);
  ASSERT_EQ(
      server.send(Json::parse(
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"nonce-9"}}})")),
      0);
  const auto ping = server.read_message();
  ASSERT_TRUE(ping);
  EXPECT_EQ(*ping, Json::parse(R"({"jsonrpc":"2.0","id":"srv-ping-1","method":"ping"})"));
  ASSERT_EQ(server.send(Json::parse(R"({"jsonrpc":"2.0","id":"srv-ping-1","result":{}})")), 0);
  const auto result = server.read_message();
  ASSERT_TRUE(result);
  EXPECT_EQ((*result)["result"]["content"][0]["text"], Json("nonce-9"));
  server.close_stdin();
  EXPECT_EQ(server.wait_exit(), 0);

  const auto records = transcript();
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.front()["kind"], Json("start"));
  EXPECT_EQ(records.front()["pid"], Json(server.pid()));
  std::ifstream pid_file(dir_ / "evidence" / "mock.pid");
  long pid = 0;
  pid_file >> pid;
  EXPECT_EQ(pid, server.pid());
  for (const auto* id : {"handshake", "call-received", "pong"}) {
    EXPECT_EQ(test::find_check(records, id).value("outcome", ""), "met") << id;
  }
  EXPECT_EQ(records.back()["kind"], Json("end"));
  EXPECT_EQ(records.back()["reason"], Json("eof"));
  EXPECT_TRUE(std::filesystem::file_size(dir_ / "evidence" / "transcript.txt") > 0);
}

TEST_F(StdioServerTest, SigtermEndsTheRunWithExitZero) {
  ServerProcess server(args_for(pinging_script()));
  handshake(server);
  ASSERT_TRUE(server.read_message());  // the ping: the script is running
  ::kill(server.pid(), SIGTERM);
  EXPECT_EQ(server.wait_exit(), 0);
  const auto records = transcript();
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.back()["kind"], Json("end"));
  // The runner sends SIGTERM once the driver has exited: the client is gone, as at end of
  // input, and the pong the script waited for never came.
  EXPECT_EQ(records.back()["reason"], Json("eof"));
  EXPECT_EQ(test::find_check(records, "pong")["outcome"], Json("broken"));
}

TEST_F(StdioServerTest, SigintInterruptsTheRunWithoutBlame) {
  ServerProcess server(args_for(pinging_script()));
  handshake(server);
  ASSERT_TRUE(server.read_message());  // the ping: the script is running
  ::kill(server.pid(), SIGINT);
  EXPECT_EQ(server.wait_exit(), 0);
  const auto records = transcript();
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.back()["reason"], Json("interrupted"));
  EXPECT_TRUE(test::find_check(records, "pong").is_null()) << "not reached, not broken";
}

// Regression: SIGTERM ended the server at once, so a pong that had arrived but was not yet
// recorded was lost ("not reached: received SIGTERM" next to a transcript showing it).
TEST_F(StdioServerTest, SigtermStillRecordsWhatTheClientAlreadySent) {
  ServerProcess server(args_for(pinging_script()));
  handshake(server);
  ASSERT_TRUE(server.read_message());  // the ping
  ASSERT_EQ(server.send(Json::parse(R"({"jsonrpc":"2.0","id":"srv-1","result":{}})")), 0);
  ::kill(server.pid(), SIGTERM);
  EXPECT_EQ(server.wait_exit(), 0);
  const auto records = transcript();
  EXPECT_EQ(test::find_check(records, "pong")["outcome"], Json("met"));
  EXPECT_EQ(records.back()["kind"], Json("end"));
}

TEST_F(StdioServerTest, BadScriptOrCommandLineExitsTwo) {
  {
    const auto script = dir_ / "bad.json";
    std::ofstream(script) << R"({"format":"mcp-ping-script/1"})";
    ServerProcess server(
        {"--script", script.string(), "--evidence-dir", (dir_ / "evidence").string()});
    EXPECT_EQ(server.wait_exit(), 2);
    const auto records = transcript();
    ASSERT_EQ(test::records_of(records, "fatal").size(), 1u);
    EXPECT_NE(test::records_of(records, "fatal")[0]["what"].get<std::string>().find(
                  "/scenario: required"),
              std::string::npos);
  }
  {
    ServerProcess server({"--script"});
    EXPECT_EQ(server.wait_exit(), 2);
  }
}

TEST_F(StdioServerTest, ChoppedFrameArrivesWhole) {
  ServerProcess server(
      args_for(pinging_script(Json::array(), Json{{"write", "chopped"}, {"chunk", 1}})));
  handshake(server);
  const auto ping = server.read_message();
  ASSERT_TRUE(ping);
  EXPECT_EQ((*ping)["id"], Json("srv-1"));
  ASSERT_EQ(server.send(Json::parse(R"({"jsonrpc":"2.0","id":"srv-1","result":{}})")), 0);
  server.close_stdin();
  EXPECT_EQ(server.wait_exit(), 0);
  const auto records = transcript();
  bool chopped = false;
  for (const auto& f : test::records_of(records, "frame")) {
    if (f["dir"] == Json("s2c") && f["json"].value("method", "") == "ping") {
      chopped = true;
      EXPECT_EQ(f["writes"].get<std::size_t>(), f["text"].get<std::string>().size() + 1);
    }
  }
  EXPECT_TRUE(chopped);
  EXPECT_EQ(test::find_check(records, "pong")["outcome"], Json("met"));
}

// Regression: a chopped frame was stamped as written before the write of its newline, so a
// client that parses JSON as a stream (Go's json.Decoder) could answer "before" the ping and
// its pong was not seen as one. The stamp belongs to the write of the closing brace.
TEST(StdioWrite, RegressionAChoppedFrameWasStampedAtItsNewline) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const auto chopped = write_all(fds[1], "{\"a\":1}\n", 1);
  EXPECT_TRUE(chopped.ok);
  EXPECT_EQ(chopped.writes, 8u);
  EXPECT_EQ(chopped.stamped_write, 6u);  // the '}', not the newline after it
  const auto whole = write_all(fds[1], "{}\r\n", 0);
  EXPECT_EQ(whole.writes, 1u);
  EXPECT_EQ(whole.stamped_write, 0u);
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST_F(StdioServerTest, UndrainedStderrFloodBlocksTheServerUpToItsBound) {
  // This client never reads the server's stderr: 1 MiB cannot fit in the pipe.
  ServerProcess server(args_for(pinging_script(Json::array(
      {Json{{"stderr_bytes", 1 << 20}, {"check", test::check_def("stderr-drained")}}}))));
  handshake(server);
  const auto ping = server.read_message();
  ASSERT_TRUE(ping);
  ASSERT_EQ(server.send(Json::parse(R"({"jsonrpc":"2.0","id":"srv-1","result":{}})")), 0);
  server.close_stdin();
  EXPECT_EQ(server.wait_exit(), 0);
  const auto records = transcript();
  EXPECT_EQ(test::find_check(records, "pong")["outcome"], Json("met"));
  EXPECT_EQ(test::find_check(records, "stderr-drained")["outcome"], Json("broken"));
  const auto written = test::records_of(records, "stderr");
  ASSERT_EQ(written.size(), 1u);
  EXPECT_LT(written[0]["bytes"].get<std::size_t>(), std::size_t{1} << 20);
  EXPECT_EQ(written[0]["requested"], Json(1 << 20));
  EXPECT_EQ(records.back()["kind"], Json("end"));
}

TEST_F(StdioServerTest, CloseStdinMakesTheClientsWritesFail) {
  ServerProcess server(
      args_for(pinging_script(Json::array({Json{{"close_stdin", Json::object()}}}))));
  handshake(server);
  const auto ping = server.read_message();  // sent after the close: the close has happened
  ASSERT_TRUE(ping);
  EXPECT_EQ(server.send(Json::parse(R"({"jsonrpc":"2.0","id":"srv-1","result":{}})")), EPIPE);
  // Closing our read end is the only sign left that the client went away.
  server.close_stdout();
  EXPECT_EQ(server.wait_exit(), 0);
  const auto records = transcript();
  EXPECT_EQ(test::find_check(records, "pong")["outcome"], Json("broken"));
  EXPECT_EQ(records.back()["reason"], Json("eof"));
}

TEST_F(StdioServerTest, ServerPingWhileTheClientFloodsALine) {
  auto resolved = pinging_script();
  ServerProcess server(args_for(resolved));
  // 3 x the 4 KiB cap without a newline, then a newline and a normal session.
  ASSERT_EQ(server.write_line(std::string(3 * 4096, 'z')), 0);
  handshake(server);
  const auto ping = server.read_message();
  ASSERT_TRUE(ping);
  ASSERT_EQ(server.send(Json::parse(R"({"jsonrpc":"2.0","id":"srv-1","result":{}})")), 0);
  server.close_stdin();
  EXPECT_EQ(server.wait_exit(), 0);
  const auto records = transcript();
  EXPECT_EQ(test::find_check(records, "transport:line-too-long")["outcome"], Json("broken"));
  EXPECT_EQ(test::find_check(records, "pong")["outcome"], Json("met"));
}

// The hold is armed before the handshake; the client then writes only the head of a request
// (no newline): the server stops reading there and pings, so the ping reaches a client that
// has not finished its line. Then the rest of the line and the pong go through.
TEST_F(StdioServerTest, HeldInputLetsTheServerPingMidLine) {
  Json script = Json::array(
      {Json{{"hold_input", {{"min_bytes", 16}}}}, Json{{"handshake", Json::object()}},
       Json{{"await_held_input", Json::object()}},
       Json{{"send", Json::parse(R"({"jsonrpc":"2.0","id":"srv-1","method":"ping"})")},
            {"label", "ping"}},
       Json{{"expect", {{"method", "tools/list"}}},
            {"as", "list"},
            {"check", test::check_def("list-received")}},
       Json{{"expect_response", "ping"}, {"check", test::check_def("pong")}},
       Json{{"respond", "list"}, {"default", true}}, Json{{"serve_defaults", Json::object()}}});
  ServerProcess server(args_for(test::make_resolved(script, {{"case_deadline_ms", 20000}})));
  handshake(server);
  const std::string request = R"({"jsonrpc":"2.0","id":5,"method":"tools/list"})";
  ASSERT_EQ(server.write_bytes(request.substr(0, 30)), 0);
  const auto ping = server.read_message();  // written while our line is unfinished
  ASSERT_TRUE(ping);
  EXPECT_EQ((*ping)["id"], Json("srv-1"));
  ASSERT_EQ(server.write_line(request.substr(30)), 0);
  ASSERT_EQ(server.send(Json::parse(R"({"jsonrpc":"2.0","id":"srv-1","result":{}})")), 0);
  const auto tools = server.read_message();
  ASSERT_TRUE(tools);
  EXPECT_EQ((*tools)["id"], Json(5));
  server.close_stdin();
  EXPECT_EQ(server.wait_exit(), 0);
  const auto records = transcript();
  EXPECT_EQ(test::find_check(records, "list-received")["outcome"], Json("met"));
  EXPECT_EQ(test::find_check(records, "pong")["outcome"], Json("met"));
  bool held = false;
  for (const auto& e : test::records_of(records, "event"))
    held = held || e.value("bytes", std::size_t{0}) == 30;
  EXPECT_TRUE(held) << "no event says the input was held after 30 bytes";
}

}  // namespace
}  // namespace mcpping
