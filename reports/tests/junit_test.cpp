#include "reports/junit.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

CaseResult junit_case(const std::string& id, Verdict verdict,
                      const std::string& transport = "stdio") {
  CaseResult result;
  result.case_id = id;
  result.transport = transport;
  result.verdict = verdict;
  result.duration_ms = 1234.5;
  if (verdict != Verdict::Pass && verdict != Verdict::Unsupported && verdict != Verdict::Error) {
    CheckResult check;
    check.id = id + ":pong";
    check.short_id = "pong";
    check.level = verdict == Verdict::Informational ? Level::Info : Level::Must;
    check.verdict = verdict;
    check.spec = {{"ping.respond-promptly", "https://example.test/ping", "2025-11-25",
                   "The receiver MUST respond promptly with an empty response", Binds::Either}};
    check.expected = "response {\"id\":1,\"result\":{}} within 2000 ms";
    check.actual = "error -32601 \"Method not found\" after 3.1 ms";
    result.checks.push_back(check);
  }
  if (verdict == Verdict::Unsupported) result.reason = "the driver exited 127";
  if (verdict == Verdict::Error) result.reason = "the mock server failed";
  return result;
}

RunResult junit_run(std::vector<CaseResult> cases, bool strict = false) {
  RunResult run;
  run.info.suite_version = "0.1.0";
  run.info.revision = "2025-11-25";
  run.info.strict = strict;
  run.cases = std::move(cases);
  return run;
}

TEST(Junit, OneTestcasePerCaseWithClassnameAndName) {
  const std::string xml = render_junit(junit_run({junit_case("ping/idle", Verdict::Pass)}));
  EXPECT_NE(xml.find("<testcase classname=\"mcp.stdio\" name=\"ping/idle\" time=\"1.234\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"strictness\" value=\"lenient\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"revision\" value=\"2025-11-25\"/>"), std::string::npos);
}

TEST(Junit, FailureCarriesHeadlineAndEvidence) {
  const std::string xml = render_junit(junit_run({junit_case("ping/colliding-id", Verdict::Fail)}));
  EXPECT_NE(xml.find("<failure type=\"FAIL\" message=\"[MUST] ping/colliding-id:pong"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("The receiver MUST respond promptly"), std::string::npos);
  EXPECT_NE(xml.find("Expected: response {&quot;id&quot;:1"), std::string::npos);
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos);
}

TEST(Junit, UnsupportedIsSkippedAndErrorIsError) {
  const std::string xml = render_junit(
      junit_run({junit_case("a", Verdict::Unsupported), junit_case("b", Verdict::Error)}));
  EXPECT_NE(xml.find("<skipped message=\"UNSUPPORTED: the driver exited 127\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<error type=\"ERROR\""), std::string::npos);
  EXPECT_NE(xml.find("errors=\"1\" skipped=\"1\""), std::string::npos);
}

TEST(Junit, NonStrictFailsOnlyInStrictMode) {
  const auto lenient =
      render_junit(junit_run({junit_case("ping/idle", Verdict::NonStrict)}, false));
  EXPECT_EQ(lenient.find("<failure"), std::string::npos);
  EXPECT_NE(lenient.find("<system-out>NON_STRICT"), std::string::npos);
  const auto strict = render_junit(junit_run({junit_case("ping/idle", Verdict::NonStrict)}, true));
  EXPECT_NE(strict.find("<failure type=\"NON_STRICT\""), std::string::npos);
}

TEST(Junit, OneTestsuitePerTransport) {
  const std::string xml = render_junit(
      junit_run({junit_case("a", Verdict::Pass, "stdio"), junit_case("a", Verdict::Pass, "sse")}));
  EXPECT_NE(xml.find("<testsuite name=\"mcp.stdio\" tests=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"mcp.sse\" tests=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("<testsuites name=\"mcp-ping-conformance\" tests=\"2\""), std::string::npos);
}

TEST(XmlEscape, EscapesMarkup) {
  EXPECT_EQ(xml_escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
}

// A client can send any bytes; XML 1.0 cannot carry control characters or broken UTF-8.
TEST(XmlEscape, ReplacesWhatXmlCannotCarry) {
  EXPECT_EQ(xml_escape(std::string("a\x01z")), "a\xEF\xBF\xBDz");
  EXPECT_EQ(xml_escape(std::string("\xC3\x28")), "\xEF\xBF\xBD(");
  EXPECT_EQ(xml_escape(std::string("\xED\xA0\x80")), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("tab\tnl\n"), "tab\tnl\n");
  EXPECT_EQ(xml_escape("\xC3\xA9\xF0\x9F\x99\x82"), "\xC3\xA9\xF0\x9F\x99\x82");
}

}  // namespace
}  // namespace mcpping
