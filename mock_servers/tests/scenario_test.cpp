#include "engine/script.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/check_registry.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

const std::filesystem::path kFixtures = MCP_FIXTURES_DIR;
const std::filesystem::path kBroken = std::filesystem::path(MCP_TEST_DATA_DIR) / "broken";

TEST(Scenario, EveryRealFixtureLoads) {
  const auto defaults = test::fixture_defaults();
  const auto refs = test::fixture_refs();
  const auto catalogue = load_catalogue(kFixtures / "scenarios", defaults, refs, validate_script);
  ASSERT_GE(catalogue.size(), 2u);
  for (std::size_t i = 1; i < catalogue.size(); ++i)
    EXPECT_LT(catalogue[i - 1].id, catalogue[i].id);
  for (const auto& s : catalogue) {
    SCOPED_TRACE(s.id);
    EXPECT_FALSE(s.script_checks.empty());
    // What the mock servers will run must pass their own validation too.
    for (const auto& transport : s.transports) {
      RunSettings run;
      run.transport = transport;
      EXPECT_NO_THROW(parse_resolved_script(resolve_script(s, defaults, run), s.id));
    }
  }
}

// The catalogue's transport matrix has no silent gap: a case that leaves a transport out says
// why in "not_on" (docs/catalogue.md shows the line).
TEST(Scenario, EveryCaseSaysWhyItLeavesATransportOut) {
  const auto catalogue = load_catalogue(kFixtures / "scenarios", test::fixture_defaults(),
                                        test::fixture_refs(), validate_script);
  for (const auto& s : catalogue) {
    for (const auto& t : known_transports()) {
      if (s.runs_on(t)) continue;
      EXPECT_TRUE(s.not_on.count(t)) << s.id << " gives no reason for " << t;
    }
  }
}

// A check is about the client: it must cite at least one sentence that binds the client
// (a client, either or suite key in fixtures/spec-references.json), not only a sentence that
// binds the server or defines a term. INFO checks record and oblige nobody.
TEST(Scenario, EveryCheckCitesASentenceThatBindsTheClient) {
  const auto refs = test::fixture_refs();
  const auto catalogue =
      load_catalogue(kFixtures / "scenarios", test::fixture_defaults(), refs, validate_script);
  const auto cites_the_client = [&](const std::vector<std::string>& keys) {
    return std::any_of(keys.begin(), keys.end(),
                       [&](const auto& key) { return binds_client(refs.at(key).binds); });
  };
  std::size_t judged = 0;
  for (const auto& s : catalogue) {
    std::vector<std::pair<std::string, const CheckDef*>> checks;
    for (const auto& c : s.script_checks) checks.emplace_back(c.id, &c);
    for (const auto& c : s.driver_checks) checks.emplace_back(c.check.id, &c.check);
    for (const auto& [id, check] : checks) {
      if (check->level == Level::Info) continue;
      ++judged;
      EXPECT_TRUE(cites_the_client(check->spec))
          << s.id << ":" << id << " cites no sentence that binds the client";
    }
  }
  EXPECT_GT(judged, 100u);
  EXPECT_TRUE(cites_the_client(builtin_check("handshake").spec));
}

TEST(Scenario, WhileAwaitingIsLoadedFaithfully) {
  const auto s =
      load_scenario(kFixtures / "scenarios/ping/while-awaiting.json", "ping/while-awaiting",
                    test::fixture_defaults(), test::fixture_refs(), validate_script);
  EXPECT_EQ(s.id, "ping/while-awaiting");
  EXPECT_TRUE(s.runs_on("stdio"));
  EXPECT_EQ(s.revision_from, "2024-11-05");
  EXPECT_EQ(s.revision_until, "2025-11-25");
  ASSERT_EQ(s.script_checks.size(), 3u);
  EXPECT_EQ(s.script_checks[0].id, "handshake");
  EXPECT_EQ(s.script_checks[1].id, "call-received");
  EXPECT_EQ(s.script_checks[2].id, "pong");
  EXPECT_EQ(s.script_checks[2].spec,
            (std::vector<std::string>{"ping.respond-promptly", "messages.response-same-id",
                                      "jsonrpc.version"}));
  ASSERT_EQ(s.driver_checks.size(), 1u);
  EXPECT_EQ(s.driver_checks[0].step, 1u);
  EXPECT_EQ(s.deadline_kill, Level::Must);
  EXPECT_FALSE(s.runs_on("websocket"));
  EXPECT_TRUE(s.applies_to("2025-06-18"));
  EXPECT_FALSE(s.applies_to("2026-07-28"));
  EXPECT_FALSE(s.applies_to("bogus"));
}

struct BrokenCase {
  const char* file;
  const char* error;  // what() after "<file>: "
};

const BrokenCase kBrokenCases[] = {
    {"unknown-timeout",
     "/script/3/within: unknown timeout \"pong_capms\" (known: burst_cap_ms, case_deadline_ms, "
     "client_timeout_ms, expect_ms, idle_window_ms, late_pong_ms, observe_ms, pong_cap_ms, "
     "quiet_ms, settle_ms, startup_ms)"},
    {"missing-title", "/title: required"},
    {"unknown-spec", "/script/1/check/spec/0: unknown spec reference \"ping.nope\""},
    {"duplicate-check", "/script/3/check/id: duplicate check id \"call-received\""},
    {"unknown-label", "/script/3/expect_response: no earlier send has the label \"pong\""},
    {"uncaptured-ref",
     "/script/2/send/id: ${calls.id} refers to \"calls\", which no earlier step captures "
     "(captured: call, initialize, initialize_result)"},
    {"two-actions", "/script/1: more than one action: expect, send"},
    {"unknown-transport",
     "/transports/1: unknown transport \"websocket\" (known: stdio, streamable-http, sse)"},
    {"bad-type-pattern",
     "/script/1/expect/id/$type: $type takes one of string, integer, number, object, array, "
     "boolean, null, or a non-empty list of them"},
    {"serve-not-last",
     "/script/1/serve_defaults: serve_defaults runs until the client closes the connection: it "
     "must be the "
     "last step"},
    {"given-unknown-label",
     "/driver_checks/0/given: no step of the script sends under the label \"pong\""},
    {"wait-on-answer-label",
     "/script/5/expect_response: \"answer\" labels a respond step's answer, not a request"},
    {"driver-step-out-of-range",
     "/driver_checks/0/step: driver step 3 does not exist (there are 3)"},
    {"unknown-top-level",
     "/scripts: unknown field \"scripts\" (known: title, description, catches, transports, "
     "not_on, revisions, "
     "driver_steps, driver_checks, script, deadline_kill, http, exclusive)"},
    {"reserved-check-id",
     "/script/3/check/id: \"transport:line-too-long\" is reserved for the suite's own "
     "checks"},
    {"respond-uncaptured", "/script/4/respond: nothing is captured as \"cal\" before this step"},
    {"unknown-level",
     "/script/3/check/level: unknown level \"REQUIRED\" (known: MUST, SHOULD, MAY, INFO)"},
    {"revisions-reversed", "/revisions: \"from\" 2025-11-25 is after \"until\" 2024-11-05"},
    {"expect-without-check", "/script/1/check: required"},
    {"driver-idle-unknown-timeout",
     "/driver_steps/1/timeout: unknown timeout \"idle_ms\" (known: burst_cap_ms, case_deadline_ms, "
     "client_timeout_ms, expect_ms, idle_window_ms, late_pong_ms, observe_ms, pong_cap_ms, "
     "quiet_ms, settle_ms, startup_ms)"},
    {"driver-request-timeout-unknown",
     "/driver_steps/1/request_timeout: unknown timeout \"one_second\" (known: burst_cap_ms, "
     "case_deadline_ms, client_timeout_ms, expect_ms, idle_window_ms, late_pong_ms, observe_ms, "
     "pong_cap_ms, quiet_ms, settle_ms, startup_ms)"},
    {"driver-argument-unknown-macro",
     "/driver_steps/1/arguments/text: arguments know only the macro $repeat, not $repaet"},
    {"driver-argument-bad-repeat",
     "/driver_steps/1/arguments/text/$repeat: $repeat takes [TEXT, N]: a non-empty string and a "
     "positive count"},
    {"not-on-its-own-transport", "/not_on/stdio: the case runs on stdio: no reason to give"},
    {"not-on-unknown-transport",
     "/not_on/websocket: unknown transport \"websocket\" (known: stdio, streamable-http, sse)"},
    {"driver-concurrent-one-call", "/driver_steps/1/calls: needs at least 2 calls"},
    {"driver-concurrent-call-without-name", "/driver_steps/1/calls/1/name: required"},
    {"driver-close-request-timeout",
     "/driver_steps/2/request_timeout: unknown field \"request_timeout\" (known: op)"},
    {"step-transport-not-in-case",
     "/script/2/transports/0: \"sse\" is not one of the case's transports"},
    {"unknown-template-operator",
     "/script/2/send/id: unknown template operator \"$txt\" (templates know $text)"},
    {"unknown-write-mode",
     "/script/2/write: unknown write mode \"chunked\" (known: lines, coalesced, chopped, batch)"},
    {"bad-json",
     ": invalid JSON at line 5, column 1: syntax error while parsing object key - unexpected '}'; "
     "expected "
     "string literal"},
};

TEST(Scenario, BrokenFixturesNameFileFieldAndReason) {
  const auto defaults = test::fixture_defaults();
  const auto refs = test::fixture_refs();
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kBroken))
    files += entry.path().extension() == ".json";
  EXPECT_EQ(files, std::size(kBrokenCases))
      << "every broken fixture needs its expected error listed here";
  for (const auto& c : kBrokenCases) {
    SCOPED_TRACE(c.file);
    const auto path = kBroken / (std::string(c.file) + ".json");
    try {
      load_scenario(path, c.file, defaults, refs, validate_script);
      ADD_FAILURE() << "loaded without error";
    } catch (const FixtureError& e) {
      EXPECT_EQ(e.file(), path.string());
      EXPECT_EQ(std::string(e.what()), path.string() + ": " + c.error);
    }
  }
}

// The HTTP additions' checks: pointer and reason for each broken step.
class HttpStepValidation : public ::testing::Test {
 protected:
  // "accepted", or the pointer and reason validate_script() gives.
  std::string error(const Json& script, const std::vector<std::string>& transports) const {
    try {
      validate_script(script, ScriptContext{"f.json", &timeouts, nullptr, &transports});
    } catch (const FixtureError& e) {
      return e.pointer() + ": " + e.reason();
    }
    return std::string("accepted");
  }

  const TimeoutTable timeouts = test::fixture_defaults().timeouts;
  const std::vector<std::string> http = {"streamable-http"};
  const std::vector<std::string> both = {"stdio", "streamable-http"};
  const Json handshake = {{"handshake", Json::object()}};
  const Json send = {{"send", {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}}, {"label", "p"}};
  const Json check = test::check_def("c");
};

TEST_F(HttpStepValidation, StepsOfOneTransport) {
  EXPECT_EQ(error(Json::array({handshake, {{"await_get_stream", Json::object()}}}), both),
            "/script/1/await_get_stream: await_get_stream is an HTTP step: the case cannot list "
            "\"stdio\"");
  EXPECT_EQ(error(Json::array({handshake, {{"close_stdout", Json::object()}}}), http),
            "/script/1/close_stdout: close_stdout is a stdio step: the case can list only "
            "\"stdio\" as its transport");
}

TEST_F(HttpStepValidation, FailNextPostAndExpectPost) {
  EXPECT_EQ(error(Json::array({handshake,
                               {{"fail_next_post", {{"result", Json::object()}}}, {"with", 503}}}),
                  http),
            "/script/1/with: must be 500, 404 or \"reset\"");
  EXPECT_EQ(
      error(Json::array(
                {handshake, {{"fail_next_post", {{"id", {{"$contains", 1}}}}}, {"with", "reset"}}}),
            http),
      "/script/1/fail_next_post/id/$contains: $contains takes a string");
  EXPECT_EQ(error(Json::array({handshake, send, {{"expect_post", "p"}, {"check", check}}}), http),
            "/script/2/http: required");
  EXPECT_EQ(error(Json::array({handshake,
                               send,
                               {{"expect_post", "q"}, {"http", Json::object()}, {"check", check}}}),
                  http),
            "/script/2/expect_post: no earlier send has the label \"q\"");
}

TEST_F(HttpStepValidation, SseFraming) {
  auto with_sse = send;
  with_sse["sse"] = {{"line_end", "\n\r"}};
  EXPECT_EQ(error(Json::array({handshake, with_sse}), http),
            "/script/1/sse/line_end: must be \"\\n\", \"\\r\\n\" or \"\\r\"");
  with_sse["sse"] = {{"field_space", "no"}};
  EXPECT_EQ(error(Json::array({handshake, with_sse}), http),
            "/script/1/sse/field_space: must be a boolean");
  with_sse["sse"] = {{"id", "a\nb"}};
  EXPECT_EQ(error(Json::array({handshake, with_sse}), http),
            "/script/1/sse/id: must not contain a line break");
  with_sse["sse"] = {{"colour", "red"}};
  EXPECT_EQ(error(Json::array({handshake, with_sse}), http),
            "/script/1/sse/colour: unknown field \"colour\" (known: event, id, retry, line_end, "
            "multiline, prefix, field_space)");
}

TEST_F(HttpStepValidation, Routes) {
  auto routed = send;
  routed["on"] = "post:call";
  EXPECT_EQ(error(Json::array({handshake, routed}), http),
            "/script/1/on: nothing is captured as \"call\" before this step");
  routed["on"] = "get-stream";
  EXPECT_EQ(error(Json::array({handshake, routed}), http),
            "/script/1/on: unknown route \"get-stream\" (known: \"get\", \"post:NAME\")");
  routed["on"] = "post:initialize";
  EXPECT_EQ(error(Json::array({handshake, routed}), http), "accepted");
}

TEST_F(HttpStepValidation, ResumableStreams) {
  // Resumable streams are Streamable HTTP's, and name a captured request's POST.
  const std::vector<std::string> legacy = {"streamable-http", "sse"};
  EXPECT_EQ(error(Json::array({handshake, {{"disconnect", "post:initialize"}}}), legacy),
            "/script/1/disconnect: disconnect is a Streamable HTTP step (resumable streams): the "
            "case can list only \"streamable-http\" as its transport");
  EXPECT_EQ(error(Json::array({handshake, {{"disconnect", "get-stream"}}}), http),
            "/script/1/disconnect: must be \"get\" (the GET listening stream) or \"post:NAME\", "
            "the stream of the POST of the request captured as NAME");
  EXPECT_EQ(error(Json::array({handshake, {{"disconnect", "get"}}}), http), "accepted");
  // Only the listening stream is reconnected without Last-Event-ID: a POST's stream is resumed
  // with it or not at all, which its `check` judges.
  EXPECT_EQ(error(Json::array({handshake,
                               {{"await_resume", "post:initialize"},
                                {"check", check},
                                {"last_event_id_check", test::check_def("l", "SHOULD")}}}),
                  http),
            "/script/1/last_event_id_check: only the GET listening stream can be reconnected "
            "without Last-Event-ID: on a POST's stream `check` records the header");
  EXPECT_EQ(
      error(Json::array({handshake, {{"await_resume", "post:call"}, {"check", check}}}), http),
      "/script/1/await_resume: nothing is captured as \"call\" before this step");
  EXPECT_EQ(error(Json::array({handshake, {{"await_resume", "post:initialize"}}}), http),
            "/script/1/check: required");
  EXPECT_EQ(error(Json::array({handshake,
                               {{"disconnect", "post:initialize"}},
                               {{"await_resume", "post:initialize"},
                                {"check", check},
                                {"retry_check", test::check_def("r")}}}),
                  http),
            "accepted");
}

TEST_F(HttpStepValidation, ExpectPostPreferredIsAPattern) {
  // expect_post's `preferred` is a pattern like `http`.
  EXPECT_EQ(error(Json::array({handshake,
                               send,
                               {{"expect_post", "p"},
                                {"http", Json::object()},
                                {"preferred", "2025-11-25"},
                                {"check", check}}}),
                  http),
            "/script/2/preferred: must be an object, got string \"2025-11-25\"");
  EXPECT_EQ(error(Json::array({handshake,
                               send,
                               {{"expect_post", "p"},
                                {"http", Json::object()},
                                {"preferred", {{"headers", {{"v", "${initialize_result.x}"}}}}},
                                {"check", check}}}),
                  http),
            "accepted");
}

// A second handshake (a new session) carries a check of its own: `handshake` is declared once.
TEST(Scenario, ASecondHandshakeNeedsACheckOfItsOwn) {
  const TimeoutTable timeouts = test::fixture_defaults().timeouts;
  const std::vector<std::string> http = {"streamable-http"};
  auto error = [&](const Json& script) {
    try {
      validate_script(script, ScriptContext{"f.json", &timeouts, nullptr, &http});
    } catch (const FixtureError& e) {
      return e.pointer() + ": " + e.reason();
    }
    return std::string("accepted");
  };
  const Json first = {{"handshake", Json::object()}};
  EXPECT_EQ(error(Json::array({first, first})),
            "/script/1/handshake: duplicate check id \"handshake\"");
  const Json again = {{"handshake", Json::object()},
                      {"as", "again"},
                      {"within", "expect_ms"},
                      {"check", test::check_def("new-session")}};
  const Json uses_result = {{"send",
                             {{"jsonrpc", "2.0"},
                              {"method", "notifications/message"},
                              {"params", {{"version", "${again_result.protocolVersion}"}}}}}};
  EXPECT_EQ(error(Json::array({first, again, uses_result})), "accepted");
  auto typo = again;
  typo["within"] = "expect_msec";
  EXPECT_NE(error(Json::array({first, typo})).find("/script/1/within: unknown timeout"),
            std::string::npos);
}

TEST(Scenario, HttpOptionsAreResolved) {
  const auto defaults = test::fixture_defaults();
  Scenario s;
  s.id = "t/x";
  s.transports = {"streamable-http"};
  s.script = Json::array({{{"handshake", Json::object()}}});
  RunSettings run;
  run.transport = "streamable-http";
  EXPECT_EQ(resolve_script(s, defaults, run)["http"], (Json{{"post_responses", "auto"}}));
  s.http = {{"post_responses", "sse"}};
  const auto resolved = resolve_script(s, defaults, run);
  EXPECT_EQ(resolved["http"], (Json{{"post_responses", "sse"}}));
  auto broken = resolved;
  broken["http"] = {{"post_responses", "json"}};
  try {
    parse_resolved_script(broken, "r.json");
    ADD_FAILURE() << "accepted";
  } catch (const FixtureError& e) {
    EXPECT_EQ(e.pointer() + ": " + e.reason(), "/http/post_responses: must be \"auto\" or \"sse\"");
  }
}

TEST(Scenario, ScaledTimeoutsAndResolvedDriverSteps) {
  const auto defaults = test::fixture_defaults();
  const auto scaled = scaled_timeouts(defaults, 2.5);
  EXPECT_DOUBLE_EQ(scaled.at("pong_cap_ms"), 5000);
  EXPECT_DOUBLE_EQ(scaled.at("quiet_ms"), 750);
  const auto s = load_scenario(kFixtures / "scenarios/ping/idle.json", "ping/idle", defaults,
                               test::fixture_refs(), validate_script);
  const auto steps = resolve_driver_steps(s, scaled);
  EXPECT_EQ(steps[2], Json::parse(R"({"op":"idle","ms":6250})"));
  EXPECT_EQ(steps[1], s.driver_steps[1]);
}

// A deadline of a fraction of a millisecond more is a whole millisecond more, never less.
TEST(Scenario, ScaledMillisecondsRoundUp) {
  const TimeoutTable scaled = {{"startup_ms", 10000.25}, {"quiet_ms", 750}};
  EXPECT_EQ(scaled_ms(scaled, "startup_ms"), std::chrono::milliseconds(10001));
  EXPECT_EQ(scaled_ms(scaled, "quiet_ms"), std::chrono::milliseconds(750));
}

// A request step's named timeout reaches the driver as the contract's timeout_ms, scaled.
TEST(Scenario, RequestTimeoutBecomesTimeoutMs) {
  const auto defaults = test::fixture_defaults();
  const auto s =
      load_scenario(kFixtures / "scenarios/client-ping/unanswered.json", "client-ping/unanswered",
                    defaults, test::fixture_refs(), validate_script);
  const auto steps = resolve_driver_steps(s, scaled_timeouts(defaults, 3));
  EXPECT_EQ(steps[1], Json::parse(R"({"op":"ping","timeout_ms":3000})"));
  EXPECT_EQ(steps[2], Json::parse(R"({"op":"ping"})"));
}

// A step may run on some of the case's transports only; its checks follow it.
TEST(Scenario, StepTransportsFilterTheResolvedScript) {
  const auto defaults = test::fixture_defaults();
  const auto s = load_scenario(kFixtures / "scenarios/ping/idle.json", "ping/idle", defaults,
                               test::fixture_refs(), validate_script);
  RunSettings http;
  http.transport = "streamable-http";
  const auto r = resolve_script(s, defaults, http);
  ASSERT_EQ(r["script"].size(), s.script.size());
  EXPECT_EQ(r["script"][1], Json::parse(R"({"await_get_stream":{},"within":"expect_ms"})"));
  RunSettings stdio;
  EXPECT_EQ(resolve_script(s, defaults, stdio)["script"].size(), s.script.size() - 1);
}

TEST(Scenario, ResolvedScriptIsSelfContained) {
  const auto defaults = test::fixture_defaults();
  const auto s = load_scenario(kFixtures / "scenarios/ping/idle.json", "ping/idle", defaults,
                               test::fixture_refs(), validate_script);
  RunSettings run;
  run.revision = "2025-06-18";
  run.timeout_multiplier = 2;
  const auto r = resolve_script(s, defaults, run);
  EXPECT_EQ(r["scenario"], Json("ping/idle"));
  EXPECT_EQ(r["revision"], Json("2025-06-18"));
  EXPECT_EQ(r["timeouts"]["pong_cap_ms"].get<double>(), 4000);
  EXPECT_EQ(r["line_cap_bytes"], Json(1048576));
  EXPECT_EQ(r["server"]["tools"], defaults.tools);
  // On stdio the step limited to Streamable HTTP (await_get_stream) is left out.
  Json stdio_script = Json::array();
  for (const auto& step : s.script) {
    if (!step.contains("transports")) stdio_script.push_back(step);
  }
  EXPECT_EQ(r["script"], stdio_script);
  ASSERT_EQ(r["checks"].size(), s.script_checks.size());
  EXPECT_EQ(r["checks"][2]["id"], Json("pong-while-idle"));
  EXPECT_NO_THROW(parse_resolved_script(r, "x"));
  auto broken = r;
  broken["timeouts"].erase("case_deadline_ms");
  EXPECT_THROW(parse_resolved_script(broken, "x"), FixtureError);
  broken = r;
  broken["script"][4]["label"] = 3;
  EXPECT_THROW(parse_resolved_script(broken, "x"), FixtureError);
}

// The keys added with the HTTP precision fixes say whom they bind (the loader's own checks
// are in core/tests/spec_reference_test.cpp).
TEST(Scenario, SpecReferencesSayWhomTheyBind) {
  const auto refs = test::fixture_refs();
  EXPECT_EQ(refs.at("rfc9110.content-type").binds, Binds::Client);
  EXPECT_EQ(refs.at("http.protocol-version-unsupported").binds, Binds::Server);
  EXPECT_EQ(refs.at("stdio.batch").binds, Binds::Definition);
}

TEST(Scenario, DefaultsAndSpecReferencesLoad) {
  const auto defaults = test::fixture_defaults();
  EXPECT_EQ(defaults.line_cap_bytes, 1048576u);
  EXPECT_EQ(defaults.timeouts.size(), 11u);
  EXPECT_EQ(defaults.server_info["name"], Json("mcp-ping-conformance-mock"));
  const auto refs = test::fixture_refs();
  ASSERT_TRUE(refs.count("ping.respond-promptly"));
  EXPECT_EQ(refs.at("ping.respond-promptly").text,
            "The receiver MUST respond promptly with an empty response");
  for (const auto& key : builtin_check("handshake").spec) EXPECT_TRUE(refs.count(key)) << key;
}

}  // namespace
}  // namespace mcpping
