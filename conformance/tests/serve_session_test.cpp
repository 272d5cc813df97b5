#include "conformance/serve_session.hpp"

#include <gtest/gtest.h>

#include "engine/script.hpp"
#include "reports/evidence.hpp"

namespace mcpping {
namespace {

using nlohmann::json;

const std::filesystem::path kFixtures = MCP_PING_FIXTURES;

struct Catalogue {
  Defaults defaults;
  SpecReferences refs;
  std::vector<Scenario> scenarios;
};

const Catalogue& serve_catalogue() {
  static const Catalogue loaded = [] {
    Catalogue c;
    c.defaults = load_defaults(kFixtures / "defaults.json");
    c.refs = load_spec_references(kFixtures / "spec-references.json");
    c.scenarios = load_catalogue(kFixtures / "scenarios", c.defaults, c.refs, validate_script);
    return c;
  }();
  return loaded;
}

ServeOptions options(const std::string& scenario, const std::string& transport) {
  ServeOptions o;
  o.scenario = scenario;
  o.transport = transport;
  return o;
}

// The UsageError text pick_served_case() throws, or "" when it accepts.
std::string refusal(const std::string& scenario, const std::string& transport) {
  try {
    pick_served_case(serve_catalogue().scenarios, options(scenario, transport));
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

TEST(ServeSession, PicksAnExactIdOrAGlobMatchingOneCase) {
  EXPECT_EQ(
      pick_served_case(serve_catalogue().scenarios, options("ping/while-awaiting", "stdio")).id,
      "ping/while-awaiting");
  EXPECT_EQ(pick_served_case(serve_catalogue().scenarios, options("*/while-awaiting", "sse")).id,
            "ping/while-awaiting");
}

TEST(ServeSession, AMistypedIdNamesTheCloseMatches) {
  const std::string error = refusal("ping/while-awaitng", "stdio");
  EXPECT_NE(error.find("--scenario 'ping/while-awaitng' matches no case"), std::string::npos)
      << error;
  EXPECT_NE(error.find("close matches: ping/while-awaiting"), std::string::npos) << error;
  EXPECT_NE(refusal("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "stdio").find("mcp-ping-conformance list"),
            std::string::npos);
}

TEST(ServeSession, AGlobMatchingSeveralCasesListsThem) {
  const std::string error = refusal("ping/id/*", "stdio");
  EXPECT_NE(
      error.find("matches 7 cases; serve runs one: ping/id/beyond-2^53, ping/id/empty-string"),
      std::string::npos)
      << error;
  EXPECT_NE(refusal("*", "stdio").find(" more"), std::string::npos) << "a long list is cut";
}

TEST(ServeSession, ATransportTheCaseDoesNotRunOnQuotesTheFixturesReason) {
  const std::string error = refusal("ping/broken-pipe", "streamable-http");
  EXPECT_EQ(error,
            "ping/broken-pipe does not run on streamable-http: no pipe: a pong that cannot be "
            "delivered over HTTP is ping/pong-post-fails/*; it runs on stdio");
}

TEST(ServeSession, APersonGetsTimeForRequestsWhileJudgedBoundsStay) {
  const Scenario& idle =
      pick_served_case(serve_catalogue().scenarios, options("ping/idle", "stdio"));
  ServeOptions served = options("ping/idle", "streamable-http");
  served.wait_ms = 120000;
  served.timeout_multiplier = 2;
  const json catalogued = resolve_script(idle, serve_catalogue().defaults,
                                         RunSettings{"streamable-http", "2025-11-25", 2});
  const json script = human_paced_script(catalogued, served.wait_ms);
  EXPECT_EQ(script["timeouts"]["case_deadline_ms"], 120000);
  EXPECT_EQ(script["timeouts"]["expect_ms"], 120000);
  for (const char* bound : {"pong_cap_ms", "quiet_ms", "idle_window_ms", "late_pong_ms"}) {
    EXPECT_EQ(script["timeouts"][bound], catalogued["timeouts"][bound]) << bound;
  }
  // ping/idle waits for the client's own GET stream "within": "expect_ms": a bound on the
  // client, not on the person, so it keeps the catalogue's value.
  EXPECT_EQ(script["timeouts"]["catalogue_expect_ms"], catalogued["timeouts"]["expect_ms"]);
  std::size_t pinned = 0;
  for (std::size_t i = 0; i < script["script"].size(); ++i) {
    const json& step = script["script"][i];
    const json& was = catalogued["script"][i];
    if (was.value("within", "") == "expect_ms") {
      EXPECT_EQ(step["within"], "catalogue_expect_ms") << step;
      ++pinned;
    } else {
      EXPECT_EQ(step, was);
    }
  }
  EXPECT_EQ(pinned, 1u);
  EXPECT_NO_THROW(parse_resolved_script(script, "served script"));
}

TEST(ServeSession, DriverStepsBecomeWordsForAPerson) {
  EXPECT_EQ(client_step_text({{"op", "connect"}}, "stdio"),
            "connect: start the server above and initialize");
  EXPECT_EQ(client_step_text({{"op", "connect"}}, "sse"),
            "connect to the URL above and initialize");
  EXPECT_EQ(
      client_step_text(
          {{"op", "call_tool"}, {"name", "echo"}, {"arguments", {{"text", "nonce-1"}}}}, "sse"),
      R"(call the tool "echo" with {"text":"nonce-1"})");
  EXPECT_EQ(client_step_text({{"op", "ping"}, {"timeout_ms", 1000}}, "stdio"),
            "send a ping, with a request timeout of 1000 ms");
  EXPECT_EQ(client_step_text({{"op", "idle"}, {"ms", 2500}}, "stdio"),
            "stay idle for 2500 ms: no request");
  EXPECT_EQ(client_step_text({{"op", "list_tools"}}, "stdio"), "list the tools");
  EXPECT_EQ(client_step_text({{"op", "close"}}, "stdio"), "close the connection");
  EXPECT_EQ(client_step_text(json::parse(R"({"op":"call_tools_concurrently","calls":[
                {"name":"echo","arguments":{"text":"a"}},{"name":"echo","arguments":{"text":"b"}}]})"),
                             "stdio"),
            R"(call at once, each without waiting for the others: the tool "echo" with )"
            R"({"text":"a"}; the tool "echo" with {"text":"b"})");
  EXPECT_EQ(client_step_text({{"op", "teleport"}}, "stdio"), R"(do {"op":"teleport"})")
      << "an op this text does not know yet is still shown";
  const std::string long_text = client_step_text(
      {{"op", "call_tool"}, {"name", "echo"}, {"arguments", {{"text", std::string(98304, 'x')}}}},
      "stdio");
  EXPECT_LT(long_text.size(), 300u);
  EXPECT_NE(long_text.find("bytes)"), std::string::npos) << long_text;
}

TEST(ServeSession, TheStdioCommandIsShownQuotedAsJsonAndAsAConfigEntry) {
  const std::string text =
      stdio_server_text({"/opt/suite/mcp-mock-stdio-server", "--script", "/tmp/it's here/s.json"});
  EXPECT_EQ(text,
            "  command line: '/opt/suite/mcp-mock-stdio-server' '--script' '/tmp/it'\\''s "
            "here/s.json'\n"
            "  argv (JSON): [\"/opt/suite/mcp-mock-stdio-server\",\"--script\",\"/tmp/it's "
            "here/s.json\"]\n"
            "  mcpServers entry: {\"mcpServers\":{\"mcp-ping-conformance\":{\"args\":[\"--script\","
            "\"/tmp/it's here/s.json\"],\"command\":\"/opt/suite/mcp-mock-stdio-server\"}}}\n");
}

CheckResult check(const std::string& id, Verdict verdict, const std::string& actual) {
  CheckResult c;
  c.id = "ping/while-awaiting:" + id;
  c.short_id = id;
  c.verdict = verdict;
  c.outcome = verdict == Verdict::Pass ? Outcome::Met : Outcome::Broken;
  c.expected = "a pong within 2000 ms";
  c.actual = actual;
  return c;
}

TEST(ServeSession, TheReportListsEveryCheckAndTheDriverSideOnesAsNotJudged) {
  CaseResult result;
  result.case_id = "ping/while-awaiting";
  result.transport = "stdio";
  result.evidence_dir = "/tmp/report/cases/stdio/ping/while-awaiting";
  result.checks = {check("pong", Verdict::Pass, "pong after 0.3 ms")};
  result.not_judged = {{"ping/while-awaiting:call-result-delivered", "call-result-delivered",
                        Level::Must, "step 1 (call_tool) reports {\"ok\":true}",
                        "no driver in serve mode: judge it by eye",
                        NotJudgedCheck::Cause::kNoDriver}};
  EXPECT_EQ(served_case_report(result),
            "checks:\n"
            "  PASS          [MUST] ping/while-awaiting:pong \u2014 pong after 0.3 ms\n"
            "  not judged (no driver in serve mode): what a driver would check, yours to see\n"
            "    [MUST] ping/while-awaiting:call-result-delivered \u2014 step 1 (call_tool) "
            "reports {\"ok\":true}\n"
            "PASS  ping/while-awaiting (stdio)  evidence in "
            "/tmp/report/cases/stdio/ping/while-awaiting\n");

  // A failing case also gets the evidence `run` prints: spec, Expected/Actual, transcript.
  result.verdict = Verdict::Fail;
  result.checks = {check("pong", Verdict::Fail, "no pong within 2000 ms")};
  result.transcript_excerpt = {"  12.0 -> ping"};
  const std::string report = served_case_report(result);
  EXPECT_NE(report.find("  FAIL          [MUST] ping/while-awaiting:pong \u2014 no pong"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find(evidence_text(result)), std::string::npos) << report;
  EXPECT_NE(report.find("\nFAIL  ping/while-awaiting (stdio)"), std::string::npos) << report;
}

TEST(ServeSession, ExitStatusFollowsTheVerdictAsRunDoes) {
  CaseResult result;
  result.case_id = "ping/idle";
  result.transport = "stdio";
  const auto status = [&](Verdict verdict) {
    result.verdict = verdict;
    return served_exit_status(result);
  };
  EXPECT_EQ(status(Verdict::Pass), 0);
  EXPECT_EQ(status(Verdict::Informational), 0);
  EXPECT_EQ(status(Verdict::Unsupported), 0);
  EXPECT_EQ(status(Verdict::NonStrict), 0);
  EXPECT_EQ(status(Verdict::Fail), 1);
  EXPECT_EQ(status(Verdict::Error), 3);
  // A failing finding fails a served case as it fails a run, though the case PASSes.
  auto rule = check("http:session-id", Verdict::Fail, "POST without Mcp-Session-Id");
  rule.kind = CheckKind::Collateral;
  result.checks = {rule};
  EXPECT_EQ(status(Verdict::Pass), 1);
}

}  // namespace
}  // namespace mcpping
