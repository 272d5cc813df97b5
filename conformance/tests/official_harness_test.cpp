#include "conformance/official_harness.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "engine/script.hpp"

namespace mcpping {
namespace {

using nlohmann::json;

// A case shaped like most of the catalogue: a tools/call held open while the server pings.
Scenario pending_call_case() {
  Scenario s;
  s.id = "ping/while-awaiting";
  s.title = "Ping while a tools/call is awaited";
  s.transports = {"stdio", "streamable-http", "sse"};
  s.driver_steps = json::parse(
      R"([{"op":"connect"},{"op":"call_tool","name":"echo","arguments":{"text":"n"}},{"op":"close"}])");
  DriverCheck delivered;
  delivered.check = {"call-result-delivered", Level::Must, {"suite.client-survives"}};
  delivered.step = 1;
  delivered.expect = json::parse(R"({"ok":true,"result":{"content":[{"text":"n"}]}})");
  delivered.check.given = {"ping"};
  s.driver_checks = {delivered};
  s.script = json::parse(R"([
    {"handshake": {}},
    {"expect": {"method": "tools/call"}, "as": "call", "check": {"id": "call-received", "level": "MUST", "spec": []}},
    {"send": {"jsonrpc": "2.0", "id": "p", "method": "ping"}, "label": "ping"},
    {"expect_response": "ping", "check": {"id": "pong", "level": "MUST", "spec": []}},
    {"respond": "call", "default": true},
    {"serve_defaults": {}}
  ])");
  return s;
}

TEST(OfficialHarnessFit, APendingCallBecomesTheHarnessToolsList) {
  const HarnessFit fit = fit_official_harness(pending_call_case(), "streamable-http");
  ASSERT_TRUE(fit.scenario) << fit.why_not;
  const Scenario& adapted = *fit.scenario;
  EXPECT_EQ(adapted.driver_steps,
            json::parse(R"([{"op":"connect"},{"op":"list_tools"},{"op":"close"}])"));
  EXPECT_TRUE(adapted.driver_checks.empty());
  EXPECT_EQ(adapted.script[1]["expect"], json({{"method", "tools/list"}}));
  EXPECT_EQ(adapted.script[1]["as"], "call");
  // Everything else of the script is the case's own.
  json rest = adapted.script;
  rest[1]["expect"]["method"] = "tools/call";
  EXPECT_EQ(rest, pending_call_case().script);
  EXPECT_EQ(adapted.id, "ping/while-awaiting");
}

// Regression (harness:exit was MUST where the driver checks it stands in for are SHOULD or
// MAY, e.g. the call's result after the server's own violation): it takes their level.
TEST(OfficialHarnessFit, RegressionHarnessExitWasMustWhereItsDriverChecksAreShould) {
  EXPECT_EQ(fit_official_harness(pending_call_case(), "streamable-http").scenario->harness_exit,
            Level::Must);
  Scenario after_violation = pending_call_case();
  after_violation.driver_checks[0].check.level = Level::Should;
  EXPECT_EQ(fit_official_harness(after_violation, "streamable-http").scenario->harness_exit,
            Level::Should);
  after_violation.driver_checks[0].check.level = Level::May;
  EXPECT_EQ(fit_official_harness(after_violation, "streamable-http").scenario->harness_exit,
            Level::May);
}

TEST(OfficialHarnessFit, OnlyStreamableHttp) {
  for (const std::string transport : {"stdio", "sse"}) {
    const HarnessFit fit = fit_official_harness(pending_call_case(), transport);
    EXPECT_FALSE(fit.scenario);
    EXPECT_TRUE(fit.wrong_transport);
    EXPECT_EQ(fit.why_not, "the official suite's client harnesses speak Streamable HTTP only");
  }
}

TEST(OfficialHarnessFit, ConnectListToolsCloseFitsWithAConnectCheck) {
  Scenario s = pending_call_case();
  s.driver_steps = json::parse(R"([{"op":"connect"},{"op":"list_tools"},{"op":"close"}])");
  s.driver_checks[0].step = 0;
  s.driver_checks[0].expect = json{{"ok", true}};
  EXPECT_TRUE(fit_official_harness(s, "streamable-http").scenario);
}

TEST(OfficialHarnessFit, StepsAHarnessDoesNotTakeRuleTheCaseOut) {
  const std::vector<std::pair<std::string, std::string>> misfits = {
      {R"([{"op":"connect"},{"op":"call_tool"},{"op":"idle","ms":5},{"op":"close"}])",
       "connect, call_tool, idle, close"},
      {R"([{"op":"connect"},{"op":"ping"},{"op":"close"}])", "connect, ping, close"},
      {R"([{"op":"connect"},{"op":"call_tools_concurrently"},{"op":"close"}])",
       "connect, call_tools_concurrently, close"},
      {R"([{"op":"connect"},{"op":"call_tool"},{"op":"list_tools"},{"op":"close"}])",
       "connect, call_tool, list_tools, close"},
      {R"([{"op":"connect"},{"op":"list_tools","request_timeout":"t"},{"op":"close"}])",
       "connect, list_tools, close with a request timeout"},
  };
  for (const auto& [steps, named] : misfits) {
    Scenario s = pending_call_case();
    s.driver_steps = json::parse(steps);
    s.driver_checks.clear();
    const HarnessFit fit = fit_official_harness(s, "streamable-http");
    EXPECT_FALSE(fit.scenario) << steps;
    EXPECT_FALSE(fit.wrong_transport);
    EXPECT_EQ(
        fit.why_not,
        "a harness only connects, lists tools and closes; this case's client steps are " + named);
  }
}

TEST(OfficialHarnessFit, ADriverCheckTheExitStatusCannotStandForRulesTheCaseOut) {
  Scenario failure_expected = pending_call_case();
  failure_expected.driver_checks[0].expect = json{{"ok", false}};
  HarnessFit fit = fit_official_harness(failure_expected, "streamable-http");
  EXPECT_FALSE(fit.scenario);
  EXPECT_EQ(fit.why_not,
            "its check call-result-delivered judges what the client returned for step 1 "
            "(call_tool), which a harness never prints");

  Scenario on_close = pending_call_case();
  on_close.driver_checks[0].step = 2;
  on_close.driver_checks[0].expect = json{{"ok", true}};
  fit = fit_official_harness(on_close, "streamable-http");
  EXPECT_FALSE(fit.scenario);
  EXPECT_NE(fit.why_not.find("step 2 (close)"), std::string::npos) << fit.why_not;
}

TEST(OfficialHarnessFit, AScriptWaitingForParticularArgumentsRulesTheCaseOut) {
  Scenario s = pending_call_case();
  s.script[1]["expect"] = json::parse(R"({"method":"tools/call","params":{"name":"echo"}})");
  const HarnessFit fit = fit_official_harness(s, "streamable-http");
  EXPECT_FALSE(fit.scenario);
  EXPECT_EQ(fit.why_not,
            "its script waits for a tools/call with particular arguments; a harness sends "
            "tools/list");
}

TEST(OfficialHarnessPlan, CasesThatFitRunAdaptedTheOthersAreUnsupported) {
  const Scenario awaiting = pending_call_case();
  Scenario pinging = pending_call_case();
  pinging.id = "client-ping/answered";
  pinging.driver_steps = json::parse(R"([{"op":"connect"},{"op":"ping"},{"op":"close"}])");
  std::vector<PlannedCase> cases = {
      {&awaiting, "streamable-http", std::nullopt},
      {&awaiting, "stdio", std::nullopt},
      {&pinging, "streamable-http", std::nullopt},
      {&awaiting, "sse", std::string("the case applies to revisions ...")},
  };
  std::deque<Scenario> adapted;
  plan_official_harness(cases, adapted);

  ASSERT_EQ(adapted.size(), 1u);
  EXPECT_EQ(cases[0].scenario, &adapted.front());
  EXPECT_FALSE(cases[0].unsupported);

  ASSERT_TRUE(cases[1].unsupported);
  EXPECT_EQ(*cases[1].unsupported,
            "the official harness cannot run it: the official suite's client harnesses speak "
            "Streamable HTTP only");
  EXPECT_EQ(cases[1].unsupported_kind, CaseResult::Unsupported::kTransport);

  ASSERT_TRUE(cases[2].unsupported);
  EXPECT_NE(cases[2].unsupported->find("connect, ping, close"), std::string::npos);
  EXPECT_EQ(cases[2].unsupported_kind, CaseResult::Unsupported::kDriver);
  EXPECT_EQ(cases[2].scenario, &pinging);

  // A case the revision already rules out keeps that reason.
  EXPECT_EQ(*cases[3].unsupported, "the case applies to revisions ...");
  EXPECT_EQ(cases[3].unsupported_kind, CaseResult::Unsupported::kRevision);
}

TEST(OfficialHarnessInvocation, UrlLastAndTheOfficialEnvironment) {
  const DriverInvocation invocation = official_harness_invocation(
      {"node", "harness.mjs", "--flag with spaces"}, "ping/colliding-id", "streamable-http",
      "2025-06-18", "http://127.0.0.1:4321/mcp");
  EXPECT_EQ(invocation.argv, (std::vector<std::string>{"node", "harness.mjs", "--flag with spaces",
                                                       "http://127.0.0.1:4321/mcp"}));
  ASSERT_EQ(invocation.env.size(), 3u);
  EXPECT_EQ(invocation.env.at("MCP_CONFORMANCE_SCENARIO"), "initialize");
  EXPECT_EQ(invocation.env.at("MCP_CONFORMANCE_PROTOCOL_VERSION"), "2025-06-18");
  EXPECT_EQ(json::parse(invocation.env.at("MCP_CONFORMANCE_CONTEXT")),
            json({{"name", "initialize"},
                  {"case", "ping/colliding-id"},
                  {"transport", "streamable-http"}}));
}

TEST(OfficialHarnessScript, ToolsListAnswersNoTools) {
  const json resolved = json::parse(
      R"({"scenario":"s","server":{"server_info":{"name":"m"},"tools":[{"name":"echo"}]},"script":[]})");
  json expected = resolved;
  expected["server"]["tools"] = json::array();
  EXPECT_EQ(official_harness_script(resolved), expected);
}

// The suite's own catalogue, as `list --harness official` prints it.
std::vector<Scenario> harness_catalogue() {
  const std::filesystem::path dir = MCP_PING_FIXTURES;
  const Defaults defaults = load_defaults(dir / "defaults.json");
  const SpecReferences refs = load_spec_references(dir / "spec-references.json");
  return load_catalogue(dir / "scenarios", defaults, refs, validate_script);
}

TEST(OfficialHarnessListing, CoversTheCasesThatFitOnStreamableHttp) {
  const std::string listing = official_harness_listing(harness_catalogue(), false);
  const auto listed = [&](const std::string& id) {
    return listing.find(id + "  streamable-http  ") != std::string::npos;
  };
  for (const auto& id : {"ping/while-awaiting", "ping/colliding-id", "ping/during-initialize",
                         "ping/burst", "http/ping-on-resumed-stream", "http/pong-headers",
                         "ping/pong-post-fails/500", "server-request/unknown-method"}) {
    EXPECT_TRUE(listed(id)) << id;
  }
  for (const auto& id :
       {"client-ping/answered", "ping/idle", "http/ping-on-get-stream", "ping/pong-post-fails/404",
        "ping/two-pending-calls", "ping/broken-pipe", "legacy-sse/endpoint-pong"}) {
    EXPECT_FALSE(listed(id)) << id;
  }
  const auto lines = std::count(listing.begin(), listing.end(), '\n');
  EXPECT_EQ(lines, 46);
}

TEST(OfficialHarnessListing, MarkdownNamesWhyEveryOtherCaseIsNotCovered) {
  const std::string markdown = official_harness_listing(harness_catalogue(), true);
  EXPECT_NE(markdown.find("| `ping/colliding-id` | Ping whose id equals the pending call's id | "
                          "call_tool |"),
            std::string::npos);
  EXPECT_NE(markdown.find("| `ping/during-initialize` | Ping before the initialize response | "
                          "list_tools |"),
            std::string::npos);
  EXPECT_NE(markdown.find("| `ping/idle` | a harness only connects, lists tools and closes; "
                          "this case's client steps are connect, call_tool, idle, list_tools, "
                          "close |"),
            std::string::npos);
  EXPECT_NE(markdown.find("| `ping/broken-pipe` | runs on stdio only |"), std::string::npos);
}

}  // namespace
}  // namespace mcpping
