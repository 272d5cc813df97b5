// The runner end to end against drivers that misbehave: hangs, garbage, lies.
#include <sys/stat.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "selftest_support.hpp"

namespace mcpping::selftest {
namespace {

const std::string kDrivers = MCP_PING_SELFTEST_DATA "/drivers/";

// Regression: a driver that ignores SIGTERM and leaves a grandchild must not outlive its case.
TEST(RunnerSafety, HungDriverIgnoringTermIsKilledWithItsGroup) {
  const std::string marker = "mcp-ping-selftest-hang-" + std::to_string(::getpid());
  const RunnerRun run = run_runner(
      {"--scenario", "ping/while-awaiting", "--transport", "stdio", "--timeout-multiplier", "0.2"},
      {kDrivers + "hangs-ignoring-term.sh", marker});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.output;
  const auto verdict = case_verdict(run, "stdio", "ping/while-awaiting");
  EXPECT_EQ(verdict["verdict"], "FAIL") << verdict.dump(2);
  // It never started its server: all a stdio run can say of it (docs/verdicts.md, "Timeouts").
  EXPECT_NE(run.output.find("ping/while-awaiting:driver:started"), std::string::npos) << run.output;
  EXPECT_TRUE(processes_marked(marker).empty()) << "left behind: " << marker;
}

// Over stdio the client starts the mock server, so no server counts its start-up: the runner
// killed a client still starting at the case deadline, before the start-up budget was spent,
// and judged the case's subject (a Python SDK started eight times at once on a loaded machine).
// At --timeout-multiplier 0.2 the case deadline is 4 s (4.8 s with the driver's grace) and the
// start-up budget 6 s; this client starts its server after 5.2 s.
TEST(RunnerSafety, RegressionAStdioClientSlowerToStartThanTheCaseDeadlineWasKilled) {
  const RunnerRun run = run_runner({"--no-precheck", "--scenario", "ping/id/zero", "--transport",
                                    "stdio", "--timeout-multiplier", "0.2", "--jobs", "1"},
                                   {kDrivers + "starts-late.sh", "5.2", MCP_PING_REFERENCE_DRIVER});
  EXPECT_EQ(case_verdict(run, "stdio", "ping/id/zero")["verdict"], "PASS") << run.output;
}

TEST(RunnerSafety, DriverPrintingGarbageIsAnErrorQuotingTheLine) {
  const RunnerRun run = run_runner({"--scenario", "ping/while-awaiting", "--transport", "stdio"},
                                   {kDrivers + "prints-garbage.sh"});
  EXPECT_EQ(run.outcome.exit_code, 3) << "an ERROR is the suite's failure, not a usage error\n"
                                      << run.output;
  const auto verdict = case_verdict(run, "stdio", "ping/while-awaiting");
  EXPECT_EQ(verdict["verdict"], "ERROR");
  EXPECT_NE(verdict["reason"].get<std::string>().find("connecting to the server..."),
            std::string::npos)
      << verdict.dump(2);
}

TEST(RunnerSafety, DriverThatSupportsEverythingFailsThePrecheck) {
  const RunnerRun run =
      run_runner({"--scenario", "ping/idle"}, {kDrivers + "supports-everything.sh"});
  EXPECT_EQ(run.outcome.exit_code, 2);
  EXPECT_NE(run.output.find("failed the pre-check"), std::string::npos) << run.output;
}

// The multiplier puts the cases' deadline (200 s) past run_runner's (120 s; both grow with
// the slowdown of instrumented builds): a case left running, even one whose driver started
// just after the pre-check failed, fails the test.
TEST(RunnerSafety, AFailedPrecheckStopsTheCasesAlreadyRunningAndReportsNone) {
  const RunnerRun run =
      run_runner({"--scenario", "ping/id/*", "--transport", "stdio", "--timeout-multiplier",
                  std::to_string(10 * MCP_PING_SELFTEST_SLOWDOWN)},
                 {kDrivers + "fails-the-precheck-and-hangs-in-cases.sh"});
  EXPECT_EQ(run.outcome.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("failed the pre-check"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("] FAIL"), std::string::npos) << run.output;
  EXPECT_FALSE(std::filesystem::exists(run.report_dir / "junit.xml"));
}

// Each ctest test is a one-case run: a pre-check before the case started the driver twice in
// a row. Run one after the other, this driver's pre-check would wait for its case until the
// pre-check's deadline and fail.
TEST(RunnerSafety, ThePrecheckRunsBesideTheFirstCase) {
  const auto fifo = fresh_dir("precheck-fifo") / "meet";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const RunnerRun run =
      run_runner({"--scenario", "ping/id/zero", "--transport", "stdio", "--jobs", "1"},
                 {kDrivers + "meets-its-case-in-the-precheck.sh", fifo.string()});
  EXPECT_EQ(run.output.find("pre-check"), std::string::npos) << run.output;
  EXPECT_EQ(case_verdict(run, "stdio", "ping/id/zero")["verdict"], "UNSUPPORTED") << run.output;
}

TEST(RunnerSafety, PrecheckOnlyRunsNoCaseAndSaysHowTheDriverDid) {
  const RunnerRun passed =
      run_runner({"--precheck-only", "--transport", "sse"}, {kDrivers + "unsupported.sh"});
  EXPECT_EQ(passed.outcome.exit_code, 0) << passed.output;
  EXPECT_NE(passed.output.find("passed the pre-check"), std::string::npos) << passed.output;
  EXPECT_FALSE(std::filesystem::exists(passed.report_dir / "cases"));
  const RunnerRun failed = run_runner({"--precheck-only"}, {kDrivers + "supports-everything.sh"});
  EXPECT_EQ(failed.outcome.exit_code, 2) << failed.output;
  EXPECT_NE(failed.output.find("failed the pre-check"), std::string::npos) << failed.output;
}

// The ctest module's case tests: their precheck test already refused such a driver.
TEST(RunnerSafety, NoPrecheckRunsTheCaseOfADriverThatWouldFailIt) {
  const RunnerRun run =
      run_runner({"--no-precheck", "--scenario", "ping/id/zero", "--transport", "stdio"},
                 {kDrivers + "supports-everything.sh"});
  EXPECT_EQ(run.outcome.exit_code, 3) << run.output;
  EXPECT_EQ(run.output.find("pre-check"), std::string::npos) << run.output;
  const auto verdict = case_verdict(run, "stdio", "ping/id/zero");
  EXPECT_EQ(verdict["verdict"], "ERROR") << run.output;
  EXPECT_NE(verdict["reason"].get<std::string>().find("broke the driver contract"),
            std::string::npos)
      << verdict.dump(2);
}

TEST(RunnerSafety, MissingDriverIsAClearError) {
  const RunnerRun run = run_runner({"--scenario", "ping/idle"}, {kDrivers + "no-such-driver"});
  EXPECT_EQ(run.outcome.exit_code, 2);
  EXPECT_NE(run.output.find("no-such-driver"), std::string::npos) << run.output;
}

TEST(RunnerSafety, UnsupportedCasesAreSkippedWithTheChosenExitCode) {
  const RunnerRun run = run_runner({"--scenario", "ping/id/*", "--unsupported-exit-code", "77"},
                                   {kDrivers + "unsupported.sh"});
  EXPECT_EQ(run.outcome.exit_code, 77) << run.output;
  const std::string junit = read_text(run.report_dir / "junit.xml");
  EXPECT_NE(junit.find("<skipped message=\"UNSUPPORTED: the driver exited 127"), std::string::npos)
      << junit;
}

TEST(RunnerSafety, RevisionWithoutPingMakesCasesUnsupported) {
  const RunnerRun run =
      run_runner({"--scenario", "ping/idle", "--revision", "2026-07-28"}, {MCP_PING_BROKEN_CLIENT});
  EXPECT_EQ(run.outcome.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("UNSUPPORTED"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("not 2026-07-28"), std::string::npos) << run.output;
}

// Regression: an HTTP case's reproduce.sh pointed the driver at the runner's server, which is
// gone by then; it must start its own mock server on the saved script.
TEST(RunnerSafety, ReproduceScriptRerunsAnHttpCase) {
  const RunnerRun run =
      run_runner({"--scenario", "ping/while-awaiting", "--transport", "streamable-http"},
                 {MCP_PING_BROKEN_CLIENT});
  ASSERT_EQ(run.outcome.exit_code, 0) << run.output;
  const auto dir = run.report_dir / "cases" / "streamable-http" / "ping" / "while-awaiting";
  SpawnSpec spec;
  spec.argv = {(dir / "reproduce.sh").string()};
  spec.stdout_file = run.report_dir / "reproduce.stdout";
  spec.stderr_file = run.report_dir / "reproduce.stderr";
  spec.deadline = std::chrono::seconds(60);
  const auto outcome = run_child(spec);
  EXPECT_EQ(outcome.exit_code, 0) << read_text(spec.stderr_file);
  const std::string out = read_text(spec.stdout_file);
  EXPECT_NE(out.find("\"op\":\"call_tool\""), std::string::npos) << out;
  EXPECT_EQ(out.find("\"ok\":false"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 3) << out;
  EXPECT_NE(read_text(spec.stderr_file).find("mock server at http://127.0.0.1:"),
            std::string::npos);
  // Regression: a harness started with `npx tsx client.ts` failed when its reproduce.sh was
  // run from another folder. The script goes back to where the driver ran.
  EXPECT_NE(read_text(dir / "reproduce.sh")
                .find("\ncd '" + std::filesystem::current_path().string() + "'\n"),
            std::string::npos)
      << read_text(dir / "reproduce.sh");
}

TEST(RunnerSafety, ScenarioGlobMatchingNothingIsAUsageError) {
  const RunnerRun run = run_runner({"--scenario", "ping/no-such-case"}, {MCP_PING_BROKEN_CLIENT});
  EXPECT_EQ(run.outcome.exit_code, 2);
  EXPECT_NE(run.output.find("matches no case"), std::string::npos) << run.output;
}

// A run loads only the fixtures its globs name: a typo named nothing, and the message had no
// close matches to offer.
TEST(RunnerSafety, RegressionATypoedScenarioGlobStillGetsItsCloseMatches) {
  const RunnerRun run = run_runner({"--scenario", "ping/idel"}, {MCP_PING_BROKEN_CLIENT});
  EXPECT_EQ(run.outcome.exit_code, 2);
  EXPECT_NE(run.output.find("close matches: ping/idle"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace mcpping::selftest
