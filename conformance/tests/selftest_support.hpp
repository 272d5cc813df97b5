// Runs the real mcp-ping-conformance CLI for the self-tests and reads what it wrote.
#pragma once

#include <dirent.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/child_process.hpp"

namespace mcpping::selftest {

struct RunnerRun {
  ChildOutcome outcome;
  std::string output;  // the runner's stdout and stderr
  std::filesystem::path report_dir;
};

// Where self-tests write their runs: inside this build tree, so that two checkouts testing
// on one machine at once never share (and wipe) each other's report folders.
inline std::filesystem::path selftest_root() { return MCP_PING_SELFTEST_RUNS; }

// A fresh folder under selftest_root(), named after the test.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string unique = std::string(info->test_suite_name()) + "." + info->name() + "." + name;
  for (char& c : unique) {
    if (c == '/') c = '_';
  }
  auto dir = selftest_root() / unique;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The specification's schemas for rows that validate client messages (--schemas), or empty
// when this checkout has none beside it (docs/development.md): such rows then skip.
inline std::string test_schemas() {
  const std::filesystem::path dir = MCP_PING_TEST_SCHEMAS;
  return !dir.empty() && std::filesystem::is_directory(dir) ? dir.string() : std::string();
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `mcp-ping-conformance run <options> --report-dir <dir> -- <driver...>`.
inline RunnerRun run_runner(const std::vector<std::string>& options,
                            const std::vector<std::string>& driver,
                            const std::string& name = "run") {
  RunnerRun run;
  run.report_dir = fresh_dir(name);
  SpawnSpec spec;
  spec.argv = {MCP_PING_RUNNER, "run"};
  spec.argv.insert(spec.argv.end(), options.begin(), options.end());
  // ThreadSanitizer slows every process several times, and the cases' own timeouts never
  // grow: at the default of four cases per core, clients took 5 s to their first request
  // (measured), so the windows of later steps (a pong cap, a requested call) were at risk
  // too. Four at a time, as in the sanitized catalogue run of CI.
  if (MCP_PING_SELFTEST_SLOWDOWN > 1 &&
      std::none_of(options.begin(), options.end(),
                   [](const std::string& o) { return o.rfind("--jobs", 0) == 0; })) {
    spec.argv.insert(spec.argv.end(), {"--jobs", "4"});
  }
  spec.argv.insert(spec.argv.end(), {"--report-dir", run.report_dir.string(), "--"});
  spec.argv.insert(spec.argv.end(), driver.begin(), driver.end());
  spec.stdout_file = run.report_dir / "runner.stdout";
  spec.stderr_file = run.report_dir / "runner.stderr";
  spec.deadline = std::chrono::seconds(120 * MCP_PING_SELFTEST_SLOWDOWN);
  run.outcome = run_child(spec);
  run.output = read_text(spec.stdout_file) + read_text(spec.stderr_file);
  return run;
}

// The pids of the processes whose command line contains `marker`: what a run left behind.
inline std::vector<std::string> processes_marked(const std::string& marker) {
  std::vector<std::string> found;
  DIR* proc = ::opendir("/proc");
  while (proc) {
    dirent* entry = ::readdir(proc);
    if (!entry) break;
    if (!std::isdigit(static_cast<unsigned char>(entry->d_name[0]))) continue;
    const std::string cmdline = read_text(std::string("/proc/") + entry->d_name + "/cmdline");
    if (cmdline.find(marker) != std::string::npos) found.push_back(entry->d_name);
  }
  if (proc) ::closedir(proc);
  return found;
}

inline nlohmann::json case_verdict(const RunnerRun& run, const std::string& transport,
                                   const std::string& case_id) {
  const auto file = run.report_dir / "cases" / transport / case_id / "verdict.json";
  const auto parsed = nlohmann::json::parse(read_text(file), nullptr, false);
  return parsed.is_discarded() ? nlohmann::json() : parsed;
}

}  // namespace mcpping::selftest
