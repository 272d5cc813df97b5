#include "reports/baseline.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "test_runs.hpp"

namespace mcpping {
namespace {

using test::make_case;
using test::make_check;
using test::make_run;

const std::filesystem::path kData = MCP_REPORTS_TEST_DATA "/baselines";

KnownIds known() {
  KnownIds ids;
  ids.cases = {"ping/idle", "ping/burst", "client-ping/unanswered", "ping/other"};
  ids.checks = {"ping/idle:pong", "ping/burst:pongs", "ping/burst:call-result-delivered"};
  return ids;
}

TEST(BaselineFile, LoadsEntriesWithLines) {
  const Baseline baseline = load_baseline(kData / "valid.yaml");
  ASSERT_EQ(baseline.expected_failures.size(), 2u);
  EXPECT_EQ(baseline.expected_failures[0].case_id, "ping/idle");
  EXPECT_EQ(baseline.expected_failures[0].line, 3);
  EXPECT_EQ(baseline.expected_failures[1].check_id, "ping/burst:pongs");
  EXPECT_EQ(baseline.expected_failures[1].transport, "stdio");
  ASSERT_EQ(baseline.flaky.size(), 1u);
}

// Each broken file is refused with its line and what is wrong, before anything runs.
TEST(BaselineFile, BrokenFilesNameLineAndReason) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"no-reason.yaml", "no-reason.yaml:2: expected_failures: every entry needs a reason"},
      {"case-and-check.yaml",
       "case-and-check.yaml:2: expected_failures: an entry names exactly one"},
      {"check-without-colon.yaml",
       "check-without-colon.yaml:2: a check is named <case id>:<check>"},
      {"unknown-key.yaml", "unknown-key.yaml:1: unknown key 'expected_failure'"},
      {"unknown-member.yaml", "unknown-member.yaml:3: unknown member 'reson'"},
      {"bad-yaml.yaml", "bad-yaml.yaml:"},
      {"missing.yaml", "missing.yaml:0: cannot read the file"},
  };
  for (const auto& [file, message] : cases) {
    try {
      load_baseline(kData / file);
      ADD_FAILURE() << file << " was accepted";
    } catch (const BaselineError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

// Found by fuzz/baseline_fuzz: a key that is a map or a list (YAML allows "? [a, b]" and
// "{...}: x") escaped as yaml-cpp's bad-conversion exception instead of a BaselineError.
TEST(BaselineFile, RegressionKeyThatIsNotTextIsRefusedWithItsLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"? [a, b]\n: 1\n", "x.yaml:1: a key is text"},
      {"expected_failures:\n  - {case: ping/idle, reason: r}: 3\n",
       "x.yaml:2: expected_failures: a member's name is text"},
  };
  for (const auto& [text, message] : cases) {
    try {
      parse_baseline(text, "x.yaml");
      ADD_FAILURE() << text << " was accepted";
    } catch (const BaselineError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(ApplyBaseline, ListedFailureIsExpected) {
  auto run = make_run({make_case("ping/idle", {make_check("ping/idle:pong", Verdict::Fail)})});
  apply_baseline(load_baseline(kData / "valid.yaml"), known(), run);
  EXPECT_EQ(run.cases[0].expectation, CaseResult::Expectation::kExpectedFailure);
  EXPECT_FALSE(case_fails_run(run.cases[0], false));
  EXPECT_EQ(count_verdicts(run.cases).expected_failures, 1u);
}

TEST(ApplyBaseline, ListedCaseThatPassesIsStaleAndFailsTheRun) {
  auto run = make_run({make_case("ping/idle", {make_check("ping/idle:pong", Verdict::Pass)})});
  apply_baseline(load_baseline(kData / "valid.yaml"), known(), run);
  EXPECT_EQ(run.cases[0].expectation, CaseResult::Expectation::kStale);
  EXPECT_TRUE(case_fails_run(run.cases[0], false));
}

// A check entry covers only its check: a new failure elsewhere in the case still fails.
TEST(ApplyBaseline, CheckEntryDoesNotHideOtherFailingChecks) {
  auto run = make_run(
      {make_case("ping/burst", {make_check("ping/burst:pongs", Verdict::Fail),
                                make_check("ping/burst:call-result-delivered", Verdict::Fail)})});
  apply_baseline(load_baseline(kData / "valid.yaml"), known(), run);
  EXPECT_EQ(run.cases[0].expectation, CaseResult::Expectation::kNone);
  EXPECT_TRUE(case_fails_run(run.cases[0], false));
}

TEST(ApplyBaseline, TransportLimitsTheEntry) {
  auto run = make_run({make_case("ping/burst", {make_check("ping/burst:pongs", Verdict::Fail)},
                                 "streamable-http")});
  apply_baseline(load_baseline(kData / "valid.yaml"), known(), run);
  EXPECT_EQ(run.cases[0].expectation, CaseResult::Expectation::kNone);
}

TEST(ApplyBaseline, FlakyNeverGates) {
  auto failing =
      make_case("client-ping/unanswered", {make_check("client-ping/unanswered:x", Verdict::Fail)});
  auto passing = make_case("client-ping/unanswered",
                           {make_check("client-ping/unanswered:x", Verdict::Pass)}, "sse");
  auto run = make_run({failing, passing});
  apply_baseline(load_baseline(kData / "valid.yaml"), known(), run);
  EXPECT_EQ(run.cases[0].expectation, CaseResult::Expectation::kFlaky);
  EXPECT_FALSE(case_fails_run(run.cases[0], false));
  EXPECT_FALSE(case_fails_run(run.cases[1], false));
  EXPECT_EQ(count_verdicts(run.cases).flaky, 1u);
}

TEST(ApplyBaseline, NonStrictIsAFailureOnlyWhenStrict) {
  const auto non_strict =
      make_case("ping/idle", {make_check("ping/idle:pong", Verdict::NonStrict)});
  auto lenient = make_run({non_strict}, false);
  apply_baseline(load_baseline(kData / "valid.yaml"), known(), lenient);
  EXPECT_EQ(lenient.cases[0].expectation, CaseResult::Expectation::kStale);
  auto strict = make_run({non_strict}, true);
  apply_baseline(load_baseline(kData / "valid.yaml"), known(), strict);
  EXPECT_EQ(strict.cases[0].expectation, CaseResult::Expectation::kExpectedFailure);
}

TEST(ApplyBaseline, ErrorsAreNeverExpected) {
  auto error = make_case("ping/idle", {});
  error.verdict = Verdict::Error;
  auto run = make_run({error});
  apply_baseline(load_baseline(kData / "valid.yaml"), known(), run);
  EXPECT_TRUE(case_fails_run(run.cases[0], false));
}

TEST(ApplyBaseline, EntriesNamingNothingAreReported) {
  Baseline baseline;
  baseline.expected_failures = {{"ping/typo", "", "", std::nullopt, "r", 1},
                                {"", "ping/idle:no-such-check", "", std::nullopt, "r", 2},
                                {"", "ping/idle:driver:exit", "", std::nullopt, "r", 3}};
  auto run = make_run({});
  apply_baseline(baseline, known(), run);
  EXPECT_EQ(run.unknown_baseline_entries,
            (std::vector<std::string>{"ping/typo", "ping/idle:no-such-check"}));
}

TEST(BaselineFromRun, ExpectsExactlyTheFailures) {
  const auto run = make_run({make_case("ping/idle", {make_check("ping/idle:pong", Verdict::Fail)}),
                             make_case("ping/other", {make_check("ping/other:x", Verdict::Pass)})});
  const std::string yaml = baseline_from_run(run);
  const auto file = std::filesystem::temp_directory_path() / "mcp-ping-baseline-from-run.yaml";
  std::ofstream(file) << yaml;
  const Baseline written = load_baseline(file);
  ASSERT_EQ(written.expected_failures.size(), 1u) << yaml;
  EXPECT_EQ(written.expected_failures[0].check_id, "ping/idle:pong");
  EXPECT_EQ(written.expected_failures[0].transport, "stdio");
  EXPECT_NE(written.expected_failures[0].reason.find("nothing within 2000 ms"), std::string::npos);
  // Applied to the run it came from, it makes the run pass.
  auto again = run;
  apply_baseline(written, known(), again);
  EXPECT_FALSE(case_fails_run(again.cases[0], false));
}

}  // namespace
}  // namespace mcpping
