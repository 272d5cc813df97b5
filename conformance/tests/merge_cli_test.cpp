// `merge` through the real CLI: two shards of a run merge into the report of the whole run,
// and several clients into one report side by side (docs/reports.md).
#include <gtest/gtest.h>

#include "selftest_support.hpp"

namespace mcpping::selftest {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kNoPongDriver = {MCP_PING_BROKEN_CLIENT, "--fault", "no-pong"};
const std::vector<std::string> kCases = {"--scenario",          "ping/id/*",   "--scenario",
                                         "ping/while-awaiting", "--transport", "stdio"};

struct MergeRun {
  int exit_code = -1;
  std::string output;
  fs::path dir;
};

// `mcp-ping-conformance merge --output <fresh dir> <columns...>`.
MergeRun run_merge(const std::vector<std::string>& columns, const std::string& name) {
  MergeRun run;
  run.dir = fresh_dir(name);
  SpawnSpec spec;
  spec.argv = {MCP_PING_RUNNER, "merge", "--output", (run.dir / "out").string()};
  spec.argv.insert(spec.argv.end(), columns.begin(), columns.end());
  spec.stdout_file = run.dir / "merge.stdout";
  spec.stderr_file = run.dir / "merge.stderr";
  run.exit_code = run_child(spec).exit_code;
  run.output = read_text(spec.stdout_file) + read_text(spec.stderr_file);
  run.dir /= "out";
  return run;
}

nlohmann::json counts_of(const fs::path& results) {
  const auto doc = nlohmann::json::parse(read_text(results), nullptr, false);
  return doc.is_object() ? doc["counts"] : nlohmann::json();
}

std::vector<std::string> with(std::vector<std::string> options, const std::string& shard) {
  options.insert(options.end(), {"--shard", shard});
  return options;
}

TEST(MergeCli, TwoShardsMergeIntoTheCountsOfTheWholeRun) {
  const RunnerRun whole = run_runner(kCases, kNoPongDriver, "whole");
  ASSERT_EQ(whole.outcome.exit_code, 1) << whole.output;
  EXPECT_TRUE(fs::exists(whole.report_dir / "html" / "index.html"));
  EXPECT_NE(whole.output.find((whole.report_dir / "html" / "index.html").string()),
            std::string::npos)
      << whole.output;
  const RunnerRun first = run_runner(with(kCases, "1/2"), kNoPongDriver, "shard-1");
  const RunnerRun second = run_runner(with(kCases, "2/2"), kNoPongDriver, "shard-2");
  ASSERT_NE(first.outcome.exit_code, 2) << first.output;
  ASSERT_NE(second.outcome.exit_code, 2) << second.output;

  const MergeRun merged = run_merge({"--column", "broken=" + first.report_dir.string(), "--column",
                                     "broken=" + second.report_dir.string()},
                                    "merged");
  EXPECT_EQ(merged.exit_code, 1) << merged.output;
  const auto whole_counts = counts_of(whole.report_dir / "results.json");
  ASSERT_GT(whole_counts.value("total", 0), 2) << whole_counts;
  EXPECT_LT(counts_of(first.report_dir / "results.json").value("total", 0),
            whole_counts.value("total", 0));
  EXPECT_EQ(counts_of(merged.dir / "clients" / "broken" / "results.json"), whole_counts);
  EXPECT_NE(read_text(merged.dir / "junit.xml").find("classname=\"mcp.stdio\""), std::string::npos);
  EXPECT_NE(read_text(merged.dir / "summary.md").find("Total "), std::string::npos);
  EXPECT_TRUE(fs::exists(merged.dir / "html" / "cases" / "0" / "stdio" / "ping" / "id" /
                         "beyond-2_5e53.html"));

  // The same shard twice holds every case twice.
  const MergeRun twice = run_merge({"--column", "broken=" + first.report_dir.string(), "--column",
                                    "broken=" + first.report_dir.string()},
                                   "twice");
  EXPECT_EQ(twice.exit_code, 2) << twice.output;
  EXPECT_NE(twice.output.find("both hold"), std::string::npos) << twice.output;

  // Two labels: two clients side by side.
  const MergeRun clients = run_merge({"--column", "a=" + whole.report_dir.string(), "--column",
                                      "b c=" + first.report_dir.string()},
                                     "clients");
  EXPECT_EQ(clients.exit_code, 1) << clients.output;
  const std::string junit = read_text(clients.dir / "junit.xml");
  EXPECT_NE(junit.find("classname=\"mcp.a.stdio\""), std::string::npos);
  EXPECT_NE(junit.find("classname=\"mcp.b c.stdio\""), std::string::npos);
  EXPECT_TRUE(fs::exists(clients.dir / "clients" / "b-c" / "results.json"));
}

TEST(MergeCli, AMissingReportIsAUsageError) {
  const MergeRun merged = run_merge({"--column", "x=" + fresh_dir("empty").string()}, "merged");
  EXPECT_EQ(merged.exit_code, 2) << merged.output;
  EXPECT_NE(merged.output.find("cannot read"), std::string::npos) << merged.output;
}

}  // namespace
}  // namespace mcpping::selftest
