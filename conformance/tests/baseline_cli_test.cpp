// Baselines through the real CLI: expected failures, stale entries, unknown entries, and
// `baseline --from`, with their exit statuses (docs/baselines.md).
#include <fstream>

#include <gtest/gtest.h>

#include "selftest_support.hpp"

namespace mcpping::selftest {
namespace {

const std::vector<std::string> kNoPong = {MCP_PING_BROKEN_CLIENT, "--fault", "no-pong"};

std::filesystem::path write_baseline(const std::string& name, const std::string& yaml) {
  auto file = fresh_dir(name) / "baseline.yaml";
  std::ofstream(file) << yaml;
  return file;
}

TEST(BaselineCli, ExpectedFailureKeepsTheRunGreen) {
  const auto baseline = write_baseline("b", R"(expected_failures:
  - check: ping/while-awaiting:pong
    reason: this client never answers pings
)");
  const RunnerRun run = run_runner({"--scenario", "ping/while-awaiting", "--transport", "stdio",
                                    "--baseline", baseline.string()},
                                   kNoPong);
  EXPECT_EQ(run.outcome.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("1 expected failures"), std::string::npos) << run.output;
  const std::string junit = read_text(run.report_dir / "junit.xml");
  EXPECT_NE(junit.find("<skipped type=\"xfail\" message=\"expected failure (baseline): this "
                       "client never answers pings\"/>"),
            std::string::npos)
      << junit;
}

TEST(BaselineCli, StaleEntryFailsTheRun) {
  const auto baseline = write_baseline("b", R"(expected_failures:
  - case: ping/while-awaiting
    reason: used to fail
)");
  const RunnerRun run = run_runner({"--scenario", "ping/while-awaiting", "--transport", "stdio",
                                    "--baseline", baseline.string()},
                                   {MCP_PING_BROKEN_CLIENT});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("stale baseline entry: ping/while-awaiting (stdio) passed"),
            std::string::npos)
      << run.output;
}

TEST(BaselineCli, EntryNamingNoCaseIsReported) {
  const auto baseline = write_baseline("b", R"(flaky:
  - case: ping/no-such-case
    reason: typo
)");
  const RunnerRun run = run_runner({"--scenario", "ping/while-awaiting", "--transport", "stdio",
                                    "--baseline", baseline.string()},
                                   {MCP_PING_BROKEN_CLIENT});
  EXPECT_EQ(run.outcome.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("baseline entry names no case or check of this suite: "
                            "ping/no-such-case"),
            std::string::npos)
      << run.output;
}

TEST(BaselineCli, BrokenBaselineStopsBeforeAnyCase) {
  const auto baseline = write_baseline("b", "expected_failures:\n  - case: ping/idle\n");
  const RunnerRun run = run_runner({"--scenario", "ping/idle", "--baseline", baseline.string()},
                                   {MCP_PING_BROKEN_CLIENT});
  EXPECT_EQ(run.outcome.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("broken baseline"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("[1/1]"), std::string::npos) << run.output;
}

TEST(BaselineCli, BaselineFromARunMakesTheSameRunPass) {
  const RunnerRun first =
      run_runner({"--scenario", "ping/while-awaiting", "--transport", "stdio"}, kNoPong, "first");
  ASSERT_EQ(first.outcome.exit_code, 1) << first.output;
  const auto baseline = first.report_dir / "written.yaml";
  SpawnSpec spec;
  spec.argv = {MCP_PING_RUNNER,           "baseline", "--from",
               first.report_dir.string(), "--output", baseline.string()};
  spec.stdout_file = first.report_dir / "baseline.stdout";
  spec.stderr_file = first.report_dir / "baseline.stderr";
  ASSERT_EQ(run_child(spec).exit_code, 0) << read_text(spec.stderr_file);
  const std::string yaml = read_text(baseline);
  EXPECT_NE(yaml.find("check: ping/while-awaiting:pong"), std::string::npos) << yaml;
  const RunnerRun second = run_runner({"--scenario", "ping/while-awaiting", "--transport", "stdio",
                                       "--baseline", baseline.string()},
                                      kNoPong, "second");
  EXPECT_EQ(second.outcome.exit_code, 0) << second.output;
}

}  // namespace
}  // namespace mcpping::selftest
