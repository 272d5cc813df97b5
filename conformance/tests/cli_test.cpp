#include "conformance/cli.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

Command parse(const std::vector<std::string>& args) { return parse_command_line(args); }

TEST(Cli, RunTakesTheDriverArgvAfterTheSeparatorUnsplit) {
  const Command command =
      parse({"run", "--scenario", "ping/*", "--scenario", "client-ping/*", "--strict", "--",
             "/usr/bin/node", "driver.js", "--flag with spaces"});
  ASSERT_EQ(command.kind, Command::Kind::kRun);
  EXPECT_EQ(command.run.scenario_globs, (std::vector<std::string>{"ping/*", "client-ping/*"}));
  EXPECT_TRUE(command.run.strict);
  EXPECT_EQ(command.run.driver_argv,
            (std::vector<std::string>{"/usr/bin/node", "driver.js", "--flag with spaces"}));
}

TEST(Cli, OptionsTakeSeparateOrInlineValues) {
  const Command command =
      parse({"run", "--transport=stdio", "--revision", "2025-06-18", "--timeout-multiplier=2.5",
             "--jobs", "3", "--junit", "j.xml", "--report-dir", "out", "--", "d"});
  EXPECT_EQ(command.run.transport, "stdio");
  EXPECT_EQ(command.run.revision, "2025-06-18");
  EXPECT_DOUBLE_EQ(command.run.timeout_multiplier, 2.5);
  EXPECT_EQ(command.run.jobs, 3u);
  EXPECT_EQ(command.run.junit, std::filesystem::path("j.xml"));
  EXPECT_EQ(command.run.report_dir, std::filesystem::path("out"));
}

TEST(Cli, DefaultsMatchTheDocumentation) {
  const Command command = parse({"run", "--", "d"});
  EXPECT_EQ(command.run.revision, "2025-11-25");
  EXPECT_FALSE(command.run.strict);
  EXPECT_DOUBLE_EQ(command.run.timeout_multiplier, 1.0);
  EXPECT_FALSE(command.run.transport.has_value());
}

TEST(Cli, ListAcceptsATransport) {
  const Command command = parse({"list", "--transport", "sse"});
  EXPECT_EQ(command.kind, Command::Kind::kList);
  EXPECT_EQ(command.list.transport, "sse");
}

TEST(Cli, ListJsonTakesTheSelectionOfRun) {
  const Command command = parse({"list", "--json", "--scenario", "ping/*", "--scenario=http/*",
                                 "--transport=stdio", "--fixtures", "f"});
  ASSERT_EQ(command.kind, Command::Kind::kList);
  EXPECT_TRUE(command.list.json);
  EXPECT_FALSE(command.list.markdown);
  EXPECT_EQ(command.list.scenario_globs, (std::vector<std::string>{"ping/*", "http/*"}));
  EXPECT_EQ(command.list.transport, "stdio");
  EXPECT_EQ(command.list.fixtures, std::filesystem::path("f"));
  EXPECT_FALSE(parse({"list"}).list.json);
  EXPECT_TRUE(parse({"list", "--markdown"}).list.markdown);
  EXPECT_NE(usage_text().find("--json"), std::string::npos);
}

TEST(Cli, TableTakesLabelledReportFolders) {
  const Command command =
      parse({"table", "--column", "reference=build/report", "--column=TypeScript SDK 1.32.2=ts"});
  ASSERT_EQ(command.kind, Command::Kind::kTable);
  ASSERT_EQ(command.table.columns.size(), 2u);
  EXPECT_EQ(command.table.columns[1].first, "TypeScript SDK 1.32.2");
  EXPECT_EQ(command.table.columns[1].second, std::filesystem::path("ts"));
  EXPECT_THROW(parse({"table"}), UsageError);
  EXPECT_THROW(parse({"table", "--column", "no-folder"}), UsageError);
  EXPECT_TRUE(command.table.html.empty());
  EXPECT_EQ(parse({"table", "--column", "a=b", "--html", "out/index.html"}).table.html,
            std::filesystem::path("out/index.html"));
  EXPECT_THROW(parse({"table", "--column", "a=b", "--html"}), UsageError);
}

TEST(Cli, MergeTakesAnOutputAndLabelledReportFolders) {
  const Command command = parse(
      {"merge", "--output=merged", "--column", "ref=shard-1", "--column=ref=shard-2", "-o", "out"});
  ASSERT_EQ(command.kind, Command::Kind::kMerge);
  EXPECT_EQ(command.merge.output, std::filesystem::path("out"));  // the last one given
  ASSERT_EQ(command.merge.columns.size(), 2u);
  EXPECT_EQ(command.merge.columns[0].first, "ref");
  EXPECT_EQ(command.merge.columns[1].second, std::filesystem::path("shard-2"));
  EXPECT_EQ(parse({"merge", "--help"}).kind, Command::Kind::kHelp);
}

TEST(Cli, BaselineNeedsTheReportFolder) {
  const Command command = parse({"baseline", "--from", "out", "--output", "b.yaml"});
  ASSERT_EQ(command.kind, Command::Kind::kBaseline);
  EXPECT_EQ(command.baseline.from, std::filesystem::path("out"));
  EXPECT_EQ(command.baseline.output, std::filesystem::path("b.yaml"));
  EXPECT_THROW(parse({"baseline"}), UsageError);
}

TEST(Cli, ShardIsOneBasedIndexOverCount) {
  const Command command = parse({"run", "--shard", "2/3", "--ctest-measurements", "--", "d"});
  EXPECT_EQ(command.run.shard, std::make_pair(2u, 3u));
  EXPECT_TRUE(command.run.ctest_measurements);
  EXPECT_THROW(parse({"run", "--shard", "0/3", "--", "d"}), UsageError);
  EXPECT_THROW(parse({"run", "--shard", "4/3", "--", "d"}), UsageError);
  EXPECT_THROW(parse({"run", "--shard", "2", "--", "d"}), UsageError);
}

TEST(Cli, ThePrecheckRunsBesideTheCasesUnlessToldOnlyOrNot) {
  EXPECT_EQ(parse({"run", "--", "d"}).run.precheck, RunOptions::Precheck::kBeside);
  EXPECT_EQ(parse({"run", "--precheck-only", "--", "d"}).run.precheck, RunOptions::Precheck::kOnly);
  EXPECT_EQ(parse({"run", "--no-precheck", "--", "d"}).run.precheck, RunOptions::Precheck::kSkip);
  EXPECT_THROW(parse({"run", "--precheck-only", "--no-precheck", "--", "d"}), UsageError);
  EXPECT_THROW(parse({"run", "--harness", "official", "--precheck-only", "--", "h"}), UsageError);
  EXPECT_THROW(parse({"list", "--no-precheck"}), UsageError);
}

TEST(Cli, ServeTakesOneCaseAndOneTransport) {
  const Command command = parse({"serve", "--scenario", "ping/while-awaiting", "--transport=sse",
                                 "--revision", "2025-06-18", "--timeout-multiplier", "2",
                                 "--report-dir", "out", "--fixtures", "f", "--wait-ms=60000"});
  ASSERT_EQ(command.kind, Command::Kind::kServe);
  EXPECT_EQ(command.serve.scenario, "ping/while-awaiting");
  EXPECT_EQ(command.serve.transport, "sse");
  EXPECT_EQ(command.serve.revision, "2025-06-18");
  EXPECT_DOUBLE_EQ(command.serve.timeout_multiplier, 2.0);
  EXPECT_EQ(command.serve.report_dir, std::filesystem::path("out"));
  EXPECT_EQ(command.serve.fixtures, std::filesystem::path("f"));
  EXPECT_EQ(command.serve.wait_ms, 60000);
  EXPECT_EQ(parse({"serve", "--help"}).kind, Command::Kind::kHelp);
  EXPECT_NE(usage_text().find("mcp-ping-conformance serve --scenario ID --transport T"),
            std::string::npos);
}

TEST(Cli, ServeDefaultsGiveAPersonTenMinutes) {
  const Command command = parse({"serve", "--scenario", "ping/idle", "--transport", "stdio"});
  EXPECT_EQ(command.serve.wait_ms, 600000);
  EXPECT_EQ(command.serve.revision, "2025-11-25");
  EXPECT_DOUBLE_EQ(command.serve.timeout_multiplier, 1.0);
  EXPECT_EQ(command.serve.report_dir, std::filesystem::path("mcp-ping-report"));
  EXPECT_FALSE(command.serve.fixtures.has_value());
}

TEST(Cli, HelpAndVersion) {
  EXPECT_EQ(parse({"--help"}).kind, Command::Kind::kHelp);
  EXPECT_EQ(parse({"run", "--help"}).kind, Command::Kind::kHelp);
  EXPECT_EQ(parse({"--version"}).kind, Command::Kind::kVersion);
}

// Every command takes --help; after '--' it is the driver's.
TEST(Cli, HelpBeforeTheSeparatorOnlyAnyCommand) {
  for (const char* verb : {"list", "baseline", "table", "merge", "serve"})
    EXPECT_EQ(parse({verb, "-h"}).kind, Command::Kind::kHelp) << verb;
  EXPECT_EQ(parse({"run", "--strict", "--help", "--", "d"}).kind, Command::Kind::kHelp);
  const Command run = parse({"run", "--", "d", "--help"});
  ASSERT_EQ(run.kind, Command::Kind::kRun);
  EXPECT_EQ(run.run.driver_argv, (std::vector<std::string>{"d", "--help"}));
}

// Each bad command line names what is wrong.
TEST(Cli, BadCommandLinesAreUsageErrorsNamingTheProblem) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "no command"},
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {{"run"}, "give the driver after '--'"},
      {{"run", "--"}, "no driver argv"},
      {{"run", "--transport", "carrier-pigeon", "--", "d"}, "carrier-pigeon"},
      {{"run", "--revision", "2099-01-01", "--", "d"}, "2099-01-01"},
      {{"run", "--timeout-multiplier", "fast", "--", "d"}, "not a number"},
      {{"run", "--timeout-multiplier", "0", "--", "d"}, "from 0.1 to 100"},
      {{"run", "--jobs", "0", "--", "d"}, "--jobs '0'"},
      {{"run", "--scenario"}, "--scenario needs a value"},
      {{"run", "--strict=yes", "--", "d"}, "--strict takes no value"},
      {{"run", "--bogus", "--", "d"}, "unknown option '--bogus'"},
      {{"list", "--strict"}, "list: unknown option '--strict'"},
      {{"list", "--", "d"}, "list takes no driver"},
      {{"list", "--json=yes"}, "--json takes no value"},
      {{"list", "--json", "--markdown"}, "give --markdown or --json, not both"},
      {{"list", "--scenario"}, "--scenario needs a value"},
      {{"merge", "--column", "a=b"}, "merge: give the folder to write with --output"},
      {{"merge", "--output", "o"}, "merge: give at least one --column"},
      {{"merge", "--output", "o", "--column", "=dir"}, "expected LABEL=REPORT_DIR"},
      {{"merge", "--output", "o", "--column"}, "--column needs a value"},
      {{"merge", "--output", "o", "shard-1"}, "merge: unknown option 'shard-1'"},
      {{"serve", "--transport", "stdio"}, "serve: give the case with --scenario ID"},
      {{"serve", "--scenario", "ping/idle"}, "give the transport with --transport"},
      {{"serve", "--scenario", "a", "--scenario", "b", "--transport", "stdio"},
       "give --scenario once"},
      {{"serve", "--scenario", "ping/idle", "--transport", "pigeon"}, "--transport 'pigeon'"},
      {{"serve", "--scenario", "ping/idle", "--transport", "stdio", "--wait-ms", "soon"},
       "--wait-ms 'soon'"},
      {{"serve", "--scenario", "ping/idle", "--transport", "stdio", "--wait-ms", "10"},
       "from 1000 to 86400000"},
      {{"serve", "--scenario", "ping/idle", "--transport", "stdio", "--revision", "1999"},
       "--revision '1999'"},
      {{"serve", "--scenario", "ping/idle", "--transport", "stdio", "--strict"},
       "serve: unknown option '--strict'"},
      {{"serve", "--scenario", "ping/idle", "--transport", "stdio", "--", "d"},
       "serve takes no driver"},
  };
  for (const auto& [args, message] : cases) {
    try {
      parse(args);
      ADD_FAILURE() << "accepted: " << ::testing::PrintToString(args);
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
          << e.what() << " lacks " << message;
    }
  }
}

TEST(Cli, HarnessOfficialForRunAndList) {
  const Command run = parse({"run", "--harness", "official", "--", "node", "harness.mjs"});
  EXPECT_EQ(run.run.harness, "official");
  EXPECT_EQ(run.run.driver_argv, (std::vector<std::string>{"node", "harness.mjs"}));
  EXPECT_FALSE(parse({"run", "--", "d"}).run.harness);
  const Command list = parse({"list", "--harness=official", "--markdown"});
  EXPECT_EQ(list.kind, Command::Kind::kList);
  EXPECT_EQ(list.list.harness, "official");
  EXPECT_TRUE(list.list.markdown);
}

TEST(Cli, HarnessRefusals) {
  EXPECT_THROW(parse({"run", "--harness", "sdk", "--", "d"}), UsageError);
  EXPECT_THROW(parse({"run", "--harness", "--", "d"}), UsageError);
  EXPECT_THROW(parse({"list", "--harness", "official", "--json"}), UsageError);
  EXPECT_THROW(parse({"list", "--harness", "official", "--scenario", "ping/*"}), UsageError);
}

}  // namespace
}  // namespace mcpping
