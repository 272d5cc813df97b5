// Tests of the C++ driver kit (mcp_conformance_driver.hpp): the shared cases of
// drivers/kit/tests/cases.json against echo_driver.cpp, then what is particular to C++.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/child_process.hpp"

namespace {

using nlohmann::json;

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct DriverRun {
  mcpping::ChildOutcome outcome;
  std::string out;  // stdout
  std::string err;  // stderr
};

// `context`: an object is encoded, a string used as is, null leaves the variable unset; so
// does a null `transport`.
DriverRun run_echo_driver(const std::string& name, const json& context,
                          const json& transport = "stdio",
                          const std::vector<std::string>& args = {}, bool session = false,
                          const std::string& input = "") {
  std::string folder = name;
  for (char& c : folder) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  const auto dir = std::filesystem::path(MCP_KIT_TEST_RUNS) / folder;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* variable : {"MCP_CONFORMANCE_TRANSPORT", "MCP_CONFORMANCE_CONTEXT"}) {
    ::unsetenv(variable);  // extra_env can only add: a case that wants one unset gets it so
  }
  mcpping::SpawnSpec spec;
  spec.argv = {MCP_KIT_ECHO_DRIVER};
  if (!input.empty()) {
    // A session's requests on its stdin (the runner's stdin otherwise is /dev/null).
    std::ofstream(dir / "stdin") << input;
    spec.argv = {"/bin/sh", "-c", "exec \"$0\" <\"$1\"", MCP_KIT_ECHO_DRIVER,
                 (dir / "stdin").string()};
  }
  if (session) spec.extra_env["MCP_CONFORMANCE_SESSION"] = "1";
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.extra_env["MCP_CONFORMANCE_PROTOCOL_VERSION"] = "2025-11-25";
  if (!transport.is_null()) spec.extra_env["MCP_CONFORMANCE_TRANSPORT"] = transport;
  if (!context.is_null()) {
    spec.extra_env["MCP_CONFORMANCE_CONTEXT"] =
        context.is_string() ? context.get<std::string>() : context.dump();
  }
  spec.stdout_file = dir / "stdout";
  spec.stderr_file = dir / "stderr";
  spec.deadline = std::chrono::seconds(60);
  DriverRun run;
  run.outcome = mcpping::run_child(spec);
  run.out = read_text(spec.stdout_file);
  run.err = read_text(spec.stderr_file);
  return run;
}

// Every line must be one JSON value: a stray log line fails here.
json step_lines(const std::string& out) {
  json lines = json::array();
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const json parsed = json::parse(line, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << "not a JSON line on stdout: " << line;
    lines.push_back(parsed);
  }
  return lines;
}

std::vector<std::string> calls_of(const std::string& err) {
  std::vector<std::string> calls;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("call ", 0) == 0) calls.push_back(line.substr(5));
  }
  return calls;
}

std::vector<json> shared_cases() {
  const json spec = json::parse(read_text(MCP_KIT_CASES));
  return spec.at("cases").get<std::vector<json>>();
}

// A shared case's or session's name as a test name.
std::string test_name(const ::testing::TestParamInfo<json>& info) {
  std::string name = info.param["name"];
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  return name;
}

class SharedCase : public ::testing::TestWithParam<json> {};

TEST_P(SharedCase, BehavesAsSpecified) {
  const json& c = GetParam();
  const DriverRun run =
      run_echo_driver(c["name"], c["context"], c.value("transport", json("stdio")),
                      c.value("args", std::vector<std::string>{}), c.value("session", false));
  ASSERT_EQ(run.outcome.kind, mcpping::ChildOutcome::Kind::kExited)
      << mcpping::describe(run.outcome);
  EXPECT_EQ(run.outcome.exit_code, c["exit"].get<int>()) << run.err;
  EXPECT_EQ(step_lines(run.out), c.value("stdout", json::array())) << run.err;
  for (const auto& text : c.value("stderr", std::vector<std::string>{})) {
    EXPECT_NE(run.err.find(text), std::string::npos) << "no \"" << text << "\" in:\n" << run.err;
  }
  if (c.contains("calls")) {
    EXPECT_EQ(calls_of(run.err), c["calls"].get<std::vector<std::string>>()) << run.err;
  }
  EXPECT_GE(run.outcome.wall.count(), c.value("min_wall_ms", 0));
}

INSTANTIATE_TEST_SUITE_P(Kit, SharedCase, ::testing::ValuesIn(shared_cases()), test_name);

std::vector<json> shared_sessions() {
  return json::parse(read_text(MCP_KIT_CASES)).at("sessions").get<std::vector<json>>();
}

// A session (contract v1.3): one request per line on stdin, then the end of stdin.
class SharedSession : public ::testing::TestWithParam<json> {};

TEST_P(SharedSession, BehavesAsSpecified) {
  const json& s = GetParam();
  std::string input;
  for (std::size_t i = 0; i < s["requests"].size(); ++i) {
    const json& r = s["requests"][i];
    const json& context = r["context"];
    const json env = {{"MCP_CONFORMANCE_TRANSPORT", r["transport"]},
                      {"MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25"},
                      {"MCP_CONFORMANCE_CONTEXT",
                       context.is_string() ? context.get<std::string>() : context.dump()}};
    input +=
        json{{"case", i + 1}, {"env", env}, {"args", r.value("args", json::array())}}.dump() + "\n";
  }
  const DriverRun run = run_echo_driver(s["name"], nullptr, nullptr, {}, true, input);
  ASSERT_EQ(run.outcome.kind, mcpping::ChildOutcome::Kind::kExited)
      << mcpping::describe(run.outcome);
  EXPECT_EQ(run.outcome.exit_code, s["exit"].get<int>()) << run.err;
  EXPECT_EQ(step_lines(run.out), s["stdout"]) << run.err;
  std::size_t at = 0;
  for (const auto& text : s["stderr"].get<std::vector<std::string>>()) {
    const auto found = run.err.find(text, at);
    ASSERT_NE(found, std::string::npos) << "no \"" << text << "\" (in order) in:\n" << run.err;
    at = found + text.size();
  }
  if (s.value("children_gone", false)) {
    std::istringstream lines(run.err);
    int children = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("child ", 0) != 0) continue;
      ++children;
      EXPECT_FALSE(std::filesystem::exists("/proc/" + line.substr(6))) << line << " still there";
    }
    EXPECT_GT(children, 0) << run.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Kit, SharedSession, ::testing::ValuesIn(shared_sessions()), test_name);

const json kServer = {{"command", {"/bin/false"}}};

TEST(DriverKit, TheKitsErrorReportsItsCodeAndAnyOtherThrowIsAFailedStep) {
  const json steps = {{{"op", "call_tool"}, {"name", "fail-kit"}},
                      {{"op", "call_tool"}, {"name", "fail-unknown"}},
                      {{"op", "close"}}};
  const DriverRun run = run_echo_driver("kit-error", {{"server", kServer}, {"steps", steps}});
  EXPECT_EQ(run.outcome.exit_code, 0) << run.err;
  const json expected = {{{"step", 0},
                          {"op", "call_tool"},
                          {"ok", false},
                          {"error", {{"code", -32000}, {"message", "kit failure"}}}},
                         {{"step", 1},
                          {"op", "call_tool"},
                          {"ok", false},
                          {"error", {{"message", "unknown exception"}}}},
                         {{"step", 2}, {"op", "close"}, {"ok", true}, {"result", json::object()}}};
  EXPECT_EQ(step_lines(run.out), expected) << run.err;
}

// Threads call call_tool only for a driver that says its handler is thread-safe.
TEST(DriverKit, CallToolsConcurrentlyIsUnsupportedUnlessTheDriverDeclaresConcurrentCalls) {
  const json steps = {
      {{"op", "connect"}},
      {{"op", "call_tools_concurrently"}, {"calls", {{{"name", "echo"}}, {{"name", "echo"}}}}}};
  const DriverRun run = run_echo_driver("sequential-calls", {{"server", kServer}, {"steps", steps}},
                                        "stdio", {"--sequential-calls"});
  EXPECT_EQ(run.outcome.exit_code, 127) << run.err;
  EXPECT_NE(run.err.find("steps[1]: unsupported op 'call_tools_concurrently'"), std::string::npos)
      << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_TRUE(calls_of(run.err).empty()) << run.err;
}

TEST(DriverKit, LinesKeepTheirFieldOrder) {
  const DriverRun run =
      run_echo_driver("field-order", {{"server", kServer}, {"steps", {{{"op", "close"}}}}});
  EXPECT_EQ(run.out, "{\"step\":0,\"op\":\"close\",\"ok\":true,\"result\":{}}\n") << run.err;
}

}  // namespace
