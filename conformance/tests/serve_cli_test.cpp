// `serve` through the real CLI: a client configured from what serve prints (the reference
// driver, given the contract's environment by hand), then serve's own ending and judging.
#include <signal.h>
#include <sys/stat.h>

#include <cstdio>
#include <optional>

#include <gtest/gtest.h>

#include "selftest_support.hpp"

namespace mcpping::selftest {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr milliseconds kLineBound{60000};

// A running `mcp-ping-conformance serve`, and what it printed so far.
class Serve {
 public:
  Serve(const std::string& scenario, const std::string& transport)
      : report_dir_(fresh_dir(transport)), evidence_(report_dir_ / "cases" / transport / scenario) {
    process_.emplace(std::vector<std::string>{MCP_PING_RUNNER, "serve", "--scenario", scenario,
                                              "--transport", transport, "--wait-ms", "120000",
                                              "--report-dir", report_dir_.string()},
                     report_dir_ / "serve.stderr");
  }

  // The rest of the first line that starts with `prefix`; nullopt when serve ends first.
  std::optional<std::string> line_starting(const std::string& prefix) {
    while (auto line = process_->next_line(kLineBound)) {
      output_ += *line + "\n";
      if (line->rfind(prefix, 0) == 0) return line->substr(prefix.size());
    }
    return std::nullopt;
  }

  // Everything it prints until it exits, and its exit status (-1: it did not exit in time).
  int finish() {
    line_starting("\x01");  // no line starts so: reads to the end
    const auto outcome = process_->wait(kLineBound);
    output_ += read_text(report_dir_ / "serve.stderr");
    return outcome && outcome->kind == ChildOutcome::Kind::kExited ? outcome->exit_code : -1;
  }

  void interrupt() { process_->signal_group(SIGINT); }
  const std::string& output() const { return output_; }
  const fs::path& evidence() const { return evidence_; }

 private:
  fs::path report_dir_;
  fs::path evidence_;
  std::optional<BackgroundProcess> process_;
  std::string output_;
};

// The reference driver, given by hand what a runner would give it (docs/driver-contract.md).
ChildOutcome run_reference_client(const std::string& transport, const nlohmann::json& server,
                                  const fs::path& dir) {
  const auto fixture = nlohmann::json::parse(
      read_text(fs::path(MCP_PING_FIXTURES) / "scenarios/ping/while-awaiting.json"));
  SpawnSpec spec;
  spec.argv = {MCP_PING_REFERENCE_DRIVER};
  if (server.contains("url")) spec.argv.push_back(server["url"]);
  spec.extra_env = {
      {"MCP_CONFORMANCE_SCENARIO", "ping/while-awaiting"},
      {"MCP_CONFORMANCE_TRANSPORT", transport},
      {"MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25"},
      {"MCP_CONFORMANCE_CONTEXT",
       nlohmann::json{{"server", server}, {"steps", fixture["driver_steps"]}}.dump()},
  };
  spec.stdout_file = dir / "client.stdout";
  spec.stderr_file = dir / "client.stderr";
  spec.deadline = std::chrono::seconds(60);
  return run_child(spec);
}

void expect_judged_evidence(const Serve& serve, const std::string& verdict) {
  const auto judged =
      nlohmann::json::parse(read_text(serve.evidence() / "verdict.json"), nullptr, false);
  ASSERT_TRUE(judged.is_object()) << serve.output();
  EXPECT_EQ(judged["verdict"], verdict) << judged.dump(2);
  EXPECT_EQ(judged["mode"], "serve");
  EXPECT_FALSE(judged["checks"].empty());
  EXPECT_EQ(judged["not_judged"][0]["why"], "no driver in serve mode");
  const auto script = nlohmann::json::parse(read_text(serve.evidence() / "script.json"));
  EXPECT_EQ(script["timeouts"]["case_deadline_ms"], 120000);
  EXPECT_EQ(script["timeouts"]["pong_cap_ms"], 2000) << "judged bounds stay as catalogued";
  EXPECT_NE(read_text(serve.evidence() / "transcript.jsonl").find("\"kind\":\"end\""),
            std::string::npos);
  EXPECT_FALSE(read_text(serve.evidence() / "transcript.txt").empty());
  EXPECT_TRUE(processes_marked(serve.evidence().string()).empty()) << "a mock server was left";
}

void expect_a_clean_session(Serve& serve, const std::string& transport) {
  const std::string expected_tail =
      "PASS  ping/while-awaiting (" + transport + ")  evidence in " + serve.evidence().string();
  const int status = serve.finish();
  EXPECT_EQ(status, 0) << serve.output();
  for (const std::string& text :
       {std::string("connect"),
        std::string("call the tool \"echo\" with "
                    "{\"text\":\"nonce-while-awaiting\"}"),
        std::string("the script ended: the client closed the connection"), std::string("checks:\n"),
        std::string("  PASS          [MUST] ping/while-awaiting:pong"),
        std::string("not judged (no driver in serve mode)"),
        std::string("[MUST] ping/while-awaiting:call-result-delivered"), expected_tail}) {
    EXPECT_NE(serve.output().find(text), std::string::npos) << "lacks " << text << " in\n"
                                                            << serve.output();
  }
  expect_judged_evidence(serve, "PASS");
}

TEST(ServeCli, StdioClientStartsThePrintedCommandAndServeJudgesWhenItCloses) {
  Serve serve("ping/while-awaiting", "stdio");
  const auto argv = serve.line_starting("  argv (JSON): ");
  ASSERT_TRUE(argv) << serve.output();
  ASSERT_TRUE(serve.line_starting("Waiting up to")) << serve.output();
  const auto client = run_reference_client("stdio", {{"command", nlohmann::json::parse(*argv)}},
                                           serve.evidence().parent_path());
  EXPECT_EQ(client.exit_code, 0) << describe(client);
  expect_a_clean_session(serve, "stdio");
}

TEST(ServeCli, StreamableHttpClientUsesThePrintedUrl) {
  Serve serve("ping/while-awaiting", "streamable-http");
  const auto url = serve.line_starting("  url: ");
  ASSERT_TRUE(url) << serve.output();
  EXPECT_EQ(url->rfind("http://127.0.0.1:", 0), 0u) << *url;
  ASSERT_TRUE(serve.line_starting("Waiting up to")) << serve.output();
  const auto client =
      run_reference_client("streamable-http", {{"url", *url}}, serve.evidence().parent_path());
  EXPECT_EQ(client.exit_code, 0) << describe(client);
  expect_a_clean_session(serve, "streamable-http");
}

TEST(ServeCli, LegacySseClientUsesThePrintedUrl) {
  Serve serve("ping/while-awaiting", "sse");
  const auto url = serve.line_starting("  url: ");
  ASSERT_TRUE(url) << serve.output();
  EXPECT_NE(url->find("/sse"), std::string::npos) << *url;
  ASSERT_TRUE(serve.line_starting("Waiting up to")) << serve.output();
  const auto client = run_reference_client("sse", {{"url", *url}}, serve.evidence().parent_path());
  EXPECT_EQ(client.exit_code, 0) << describe(client);
  expect_a_clean_session(serve, "sse");
}

// Nobody connects; a Ctrl-C stops the mock server, and the checks it recorded are reported.
TEST(ServeCli, CtrlCStopsTheMockServerAndReportsWhatItRecorded) {
  Serve serve("ping/while-awaiting", "streamable-http");
  ASSERT_TRUE(serve.line_starting("Waiting up to")) << serve.output();
  ASSERT_FALSE(processes_marked(serve.evidence().string()).empty()) << "the mock server runs";
  serve.interrupt();
  const int status = serve.finish();
  EXPECT_EQ(status, 1) << serve.output();
  for (const std::string& text :
       {std::string("interrupted (SIGINT): the mock server was stopped"), std::string("checks:\n"),
        std::string("  FAIL          [MUST] ping/while-awaiting:handshake"),
        std::string("not reached"), std::string("not judged (no driver in serve mode)"),
        std::string("FAIL  ping/while-awaiting (streamable-http)")}) {
    EXPECT_NE(serve.output().find(text), std::string::npos) << "lacks " << text << " in\n"
                                                            << serve.output();
  }
  expect_judged_evidence(serve, "FAIL");
}

// Over stdio the client started the server; a Ctrl-C stops it through mock.pid. The client
// here is the printed command run on a fifo the test writes initialize into.
TEST(ServeCli, CtrlCStopsTheStdioServerTheClientStarted) {
  Serve serve("ping/while-awaiting", "stdio");
  const auto argv_json = serve.line_starting("  argv (JSON): ");
  ASSERT_TRUE(argv_json) << serve.output();
  ASSERT_TRUE(serve.line_starting("Waiting up to")) << serve.output();
  const fs::path fifo = serve.evidence().parent_path() / "client-to-server";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::string> client = {"/bin/sh", "-c", "exec \"$@\" <\"$0\"", fifo.string()};
  for (const auto& word : nlohmann::json::parse(*argv_json)) client.push_back(word);
  BackgroundProcess server(client, serve.evidence().parent_path() / "server.stderr");
  std::FILE* to_server = std::fopen(fifo.c_str(), "w");  // waits for the server's end
  ASSERT_NE(to_server, nullptr);
  std::fputs(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
             R"("protocolVersion":"2025-11-25","capabilities":{},)"
             R"("clientInfo":{"name":"by-hand","version":"1"}}})"
             "\n",
             to_server);
  std::fflush(to_server);
  const auto answer = server.next_line(kLineBound);  // the server runs its script
  ASSERT_TRUE(answer) << "no initialize response";
  EXPECT_NE(answer->find("\"protocolVersion\""), std::string::npos) << *answer;

  serve.interrupt();
  const int status = serve.finish();
  std::fclose(to_server);
  EXPECT_EQ(status, 1) << serve.output();
  for (const std::string& text : {std::string("interrupted (SIGINT): the mock server was stopped"),
                                  std::string("[MUST] ping/while-awaiting:call-received"),
                                  std::string("FAIL  ping/while-awaiting (stdio)")}) {
    EXPECT_NE(serve.output().find(text), std::string::npos) << "lacks " << text << " in\n"
                                                            << serve.output();
  }
  EXPECT_NE(read_text(serve.evidence() / "transcript.txt").find("received SIGTERM"),
            std::string::npos);
  const auto stopped = server.wait(kLineBound);
  ASSERT_TRUE(stopped.has_value()) << "serve left the server running";
  expect_judged_evidence(serve, "FAIL");
}

TEST(ServeCli, ATransportTheCaseDoesNotRunOnIsAUsageError) {
  Serve serve("ping/broken-pipe", "sse");
  EXPECT_EQ(serve.finish(), 2);
  EXPECT_NE(serve.output().find("ping/broken-pipe does not run on sse: no pipe"), std::string::npos)
      << serve.output();
}

}  // namespace
}  // namespace mcpping::selftest
