#include "reports/evidence.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

TEST(Evidence, NamesCheckSpecExpectedActualAndExcerpt) {
  CaseResult result;
  result.case_id = "ping/idle";
  result.verdict = Verdict::NonStrict;
  result.evidence_dir = "/tmp/report/cases/stdio/ping/idle";
  CheckResult passing;
  passing.id = "ping/idle:call-received";
  CheckResult late;
  late.id = "ping/idle:pong-while-idle";
  late.level = Level::Must;
  late.verdict = Verdict::NonStrict;
  late.spec = {
      {"k", "https://example.test/ping", "2025-11-25", "The receiver MUST respond", Binds::Either}};
  late.expected = "pong within 2000 ms";
  late.actual = "pong after 2700 ms, at the next request";
  result.checks = {passing, late};
  result.transcript_excerpt = {"+ 1.000ms  server>  {\"id\":\"idle-ping\"}"};
  const std::string text = evidence_text(result);
  EXPECT_NE(text.find("check ping/idle:pong-while-idle [MUST] NON_STRICT"), std::string::npos);
  EXPECT_EQ(text.find("call-received"), std::string::npos);
  EXPECT_NE(text.find("spec: \"The receiver MUST respond\""), std::string::npos);
  EXPECT_NE(text.find("Expected: pong within 2000 ms"), std::string::npos);
  EXPECT_NE(text.find("Actual:   pong after 2700 ms"), std::string::npos);
  EXPECT_NE(text.find("server>  {\"id\":\"idle-ping\"}"), std::string::npos);
  EXPECT_NE(text.find("evidence: /tmp/report/cases/stdio/ping/idle"), std::string::npos);
}

TEST(Evidence, HeadlineHasLevelIdAndShortActual) {
  CheckResult check;
  check.id = "ping/x:pong";
  check.level = Level::Should;
  check.actual = std::string(500, 'a');
  const std::string headline = check_headline(check);
  EXPECT_EQ(headline.rfind("[SHOULD] ping/x:pong \u2014 ", 0), 0u);
  EXPECT_LT(headline.size(), 240u);
  EXPECT_NE(headline.find("(500 bytes)"), std::string::npos) << "a cut says how much there was";
}

TEST(Evidence, SubjectChecksLeadAndFindingsAreLabelledAsNotTheCasesVerdict) {
  CaseResult result;
  result.case_id = "ping/x";
  result.verdict = Verdict::Fail;
  CheckResult rule;
  rule.id = "ping/x:http:session-id";
  rule.verdict = Verdict::Fail;
  rule.kind = CheckKind::Collateral;
  CheckResult pong;
  pong.id = "ping/x:pong";
  pong.level = Level::Should;
  pong.verdict = Verdict::NonStrict;
  result.checks = {rule, pong};
  const auto notable = notable_checks(result);
  ASSERT_EQ(notable.size(), 2u);
  EXPECT_EQ(notable[0]->id, "ping/x:pong");
  const auto text = evidence_text(result);
  EXPECT_NE(text.find("ping/x:http:session-id [MUST] FAIL (a finding of the run, not this case's "
                      "subject"),
            std::string::npos)
      << text;
  EXPECT_NE(check_headline(rule).find("(finding of the run)"), std::string::npos);
}

TEST(Evidence, ChecksNotJudgedSayWhy) {
  CaseResult result;
  result.case_id = "http/pong-headers";
  result.verdict = Verdict::Fail;
  result.not_judged = {{"http/pong-headers:session-header", "session-header", Level::Must,
                        "the POST carrying the response ...",
                        "its premise never happened: a POST carried the client's response"}};
  const auto text = evidence_text(result);
  EXPECT_NE(text.find("[MUST] http/pong-headers:session-header \u2014 not judged: its premise "
                      "never happened"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace mcpping
