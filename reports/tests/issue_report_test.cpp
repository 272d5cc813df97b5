#include "reports/issue_report.hpp"

#include <gtest/gtest.h>

#include "test_runs.hpp"

namespace mcpping {
namespace {

using test::make_case;
using test::make_check;
using test::make_finding;
using test::make_run;

CaseResult failing_case() {
  auto result = make_case("ping/idle", {make_check("ping/idle:pong", Verdict::Fail),
                                        make_finding("ping/idle", "http:session-id", "no id")});
  result.title = "Ping while idle";
  result.transcript_excerpt = {"0.000 -> {\"method\":\"ping\",\"id\":1}", "2000.000 (deadline)"};
  return result;
}

TEST(IssueReport, OnlyForFailAndNonStrictWhateverTheBaselineSays) {
  EXPECT_TRUE(wants_issue_report(failing_case()));
  EXPECT_TRUE(wants_issue_report(make_case("ping/a", {make_check("a:x", Verdict::NonStrict)})));
  auto expected = failing_case();
  expected.expectation = CaseResult::Expectation::kExpectedFailure;
  EXPECT_TRUE(wants_issue_report(expected));
  for (const Verdict verdict :
       {Verdict::Pass, Verdict::Informational, Verdict::Unsupported, Verdict::Error}) {
    auto result = make_case("ping/a", {});
    result.verdict = verdict;
    EXPECT_FALSE(wants_issue_report(result)) << to_string(verdict);
  }
}

TEST(IssueReport, CitesTheSpecSentenceExpectedActualTranscriptAndCommand) {
  auto run = make_run({failing_case()});
  run.cases[0].checks[0].spec[0].url =
      "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/"
      "ping#behavior-requirements";
  run.cases[0].checks[0].spec[0].revision = "2024-11-05..2025-11-25";
  const IssueReport issue = issue_report(run.cases[0], run.info);
  EXPECT_EQ(issue.title, "Ping while idle (stdio): [MUST] nothing within 2000 ms");
  const std::string& body = issue.body;
  EXPECT_NE(body.find("case `ping/idle` (Ping while idle) over stdio: FAIL, found by "
                      "mcp-ping-conformance 0.1.0 at protocol revision 2025-11-25 (lenient)"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("### `ping/idle:pong` [MUST]: FAIL\n\nSpecification (revision "
                      "2024-11-05..2025-11-25, section "
                      "`basic/utilities/ping#behavior-requirements`):\n\n> The receiver MUST "
                      "respond promptly with an empty response\n\nhttps://"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("**Expected:** ` pong within 2000 ms `\n\n**Actual:** ` nothing within "
                      "2000 ms `"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("```text\n0.000 -> {\"method\":\"ping\",\"id\":1}\n2000.000 (deadline)\n```"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("```sh\nmcp-ping-conformance run --scenario ping/idle --transport stdio "
                      "--revision 2025-11-25 -- ./driver --flag\n```\n"),
            std::string::npos)
      << body;
  // A finding of the run is no part of this case's defect.
  EXPECT_EQ(body.find("http:session-id"), std::string::npos) << body;
}

TEST(IssueReport, ReproduceCommandPastesIntoAShell) {
  auto result = make_case("ping/id/beyond-2^53*", {make_check("x:y", Verdict::Fail)}, "sse");
  RunInfo info;
  info.revision = "2025-03-26";
  info.strict = true;
  info.timeout_multiplier = 2.5;
  info.schemas = "/opt/spec schemas";
  info.driver_argv = {"/opt/my client/run", "--say", "it's"};
  EXPECT_EQ(reproduce_command(result, info),
            "mcp-ping-conformance run --scenario 'ping/id/beyond-2^53\\*' --transport sse "
            "--revision 2025-03-26 --timeout-multiplier 2.5 --strict --schemas '/opt/spec "
            "schemas' -- '/opt/my client/run' --say 'it'\\''s'");
  info.driver_argv.clear();  // a served case: no driver
  EXPECT_EQ(reproduce_command(result, info),
            "mcp-ping-conformance serve --scenario 'ping/id/beyond-2^53*' --transport sse "
            "--revision 2025-03-26 --timeout-multiplier 2.5");
}

TEST(IssueReport, ClientTextCannotCloseItsFencesOrSpans) {
  auto result = failing_case();
  result.checks[0].actual = "sent ``` and `x`\nthen more";
  result.transcript_excerpt = {"<- ````json {}"};
  const IssueReport issue = issue_report(result, make_run({}).info);
  EXPECT_NE(issue.body.find("**Actual:** ```` sent ``` and `x` then more ````"), std::string::npos)
      << issue.body;
  EXPECT_NE(issue.body.find("`````text\n<- ````json {}\n`````"), std::string::npos) << issue.body;
  EXPECT_EQ(markdown_fence("no ticks"), "```");
  EXPECT_EQ(markdown_fence(issue.body), "``````");
}

TEST(IssueReport, TitleKeepsTheFirstLineOfALongActualWholeCharacters) {
  auto result = failing_case();
  result.checks[0].actual = std::string(88, 'a') + "\u00e9\u00e9 and more\nsecond line";
  const IssueReport issue = issue_report(result, make_run({}).info);
  EXPECT_EQ(issue.title,
            "Ping while idle (stdio): [MUST] " + std::string(88, 'a') + "\u00e9\u2026");
}

}  // namespace
}  // namespace mcpping
