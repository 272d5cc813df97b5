#include "conformance/evaluation.hpp"
#include "core/check_registry.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

using nlohmann::json;

Scenario make_scenario() {
  Scenario s;
  s.id = "ping/while-awaiting";
  s.transports = {"stdio"};
  s.driver_steps = json::parse(R"([{"op":"connect"},{"op":"call_tool"},{"op":"close"}])");
  s.script_checks = {{"handshake", Level::Must, {"lifecycle.init-first"}},
                     {"pong", Level::Must, {"ping.respond-promptly"}},
                     {"keepalive", Level::Info, {}}};
  DriverCheck result;
  result.check = {"call-result-delivered", Level::Must, {"messages.response-same-id"}};
  result.step = 1;
  result.expect = json::parse(R"({"ok":true,"result":{"content":[{"text":"nonce"}]}})");
  s.driver_checks = {result};
  return s;
}

const SpecReferences kRefs = {
    {"ping.respond-promptly",
     {"ping.respond-promptly", "https://spec/ping", "2024-11-05..2025-11-25",
      "The receiver MUST respond", Binds::Either}},
    {"lifecycle.timeouts",
     {"lifecycle.timeouts", "https://spec/timeouts", "2025-03-26..2025-11-25",
      "the sender SHOULD issue a cancellation notification", Binds::Either}}};

CheckRecord check_record(const std::string& id, Outcome outcome, double t = 5,
                         Level level = Level::Must) {
  CheckRecord r;
  // A built-in check is recorded as the registry defines it (the handshake: collateral).
  r.check =
      is_builtin_check(id) ? builtin_check(id) : CheckDef{id, level, {"ping.respond-promptly"}};
  r.outcome = outcome;
  r.expected = "e";
  r.actual = "a";
  r.t = t;
  r.latency_ms = {1.5};
  return r;
}

CaseObservations clean_run() {
  CaseObservations o;
  o.transport = "stdio";
  o.driver->kind = ChildOutcome::Kind::kExited;
  o.driver->exit_code = 0;
  o.transcript.present = true;
  o.transcript.ended = true;
  o.transcript.checks = {check_record("handshake", Outcome::Met),
                         check_record("pong", Outcome::Met),
                         check_record("keepalive", Outcome::Met, 6, Level::Info)};
  const std::string lines =
      "{\"step\":0,\"op\":\"connect\",\"ok\":true}\n"
      "{\"step\":1,\"op\":\"call_tool\",\"ok\":true,\"result\":{\"content\":[{\"type\":\"text\","
      "\"text\":\"nonce\"}]}}\n"
      "{\"step\":2,\"op\":\"close\",\"ok\":true}\n";
  o.driver_report = parse_driver_output(lines, make_scenario().driver_steps);
  return o;
}

const CheckResult* find(const Evaluation& e, const std::string& id) {
  for (const auto& c : e.checks) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

const NotJudgedCheck* find_not_judged(const Evaluation& e, const std::string& id) {
  for (const auto& c : e.not_judged) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

// Its INFO check is recorded, and never hides the PASS of the rest of its subject.
TEST(Evaluation, CleanRunPassesWithItsInfoCheckRecorded) {
  const auto e = evaluate_case(make_scenario(), clean_run(), kRefs);
  EXPECT_EQ(e.verdict, Verdict::Pass);
  EXPECT_EQ(find(e, "ping/while-awaiting:keepalive")->verdict, Verdict::Informational);
  const auto* pong = find(e, "ping/while-awaiting:pong");
  ASSERT_NE(pong, nullptr);
  EXPECT_EQ(pong->verdict, Verdict::Pass);
  EXPECT_EQ(pong->spec.at(0).text, "The receiver MUST respond");
  EXPECT_EQ(pong->latency_ms, std::vector<double>{1.5});
  EXPECT_EQ(find(e, "ping/while-awaiting:call-result-delivered")->verdict, Verdict::Pass);
  EXPECT_EQ(find(e, "ping/while-awaiting:driver:exit")->verdict, Verdict::Pass);
}

// The mock server's burst figures travel in the check's details; a pong check without them
// stays a single pong.
TEST(Evaluation, BurstFiguresOfTheTranscriptReachTheCheck) {
  auto o = clean_run();
  o.transcript.checks[1].latency_ms = {40, 45, 50};
  o.transcript.checks[1].burst = BurstFigures{3, 3, 52.5, 57.143};
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  const auto* pong = find(e, "ping/while-awaiting:pong");
  ASSERT_NE(pong, nullptr);
  ASSERT_TRUE(pong->burst.has_value());
  EXPECT_EQ(pong->burst->pings, 3u);
  EXPECT_EQ(pong->burst->pongs, 3u);
  EXPECT_EQ(pong->burst->time_to_last_pong_ms, 52.5);
  EXPECT_EQ(pong->burst->pongs_per_second, 57.143);
  EXPECT_FALSE(find(e, "ping/while-awaiting:keepalive")->burst.has_value());
}

TEST(Evaluation, FailedCheckFailsTheCaseAndFocusesTheExcerpt) {
  auto o = clean_run();
  o.transcript.checks[1] = check_record("pong", Outcome::Broken, 42.5);
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Fail);
  EXPECT_EQ(e.focus_ms, 42.5);
}

TEST(Evaluation, UnreachedChecksCountAgainstTheClient) {
  auto o = clean_run();
  o.transcript.checks.resize(1);
  o.transcript.last_event = "the client closed its output";
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  const auto* pong = find(e, "ping/while-awaiting:pong");
  ASSERT_NE(pong, nullptr);
  EXPECT_EQ(pong->verdict, Verdict::Fail);
  EXPECT_EQ(pong->outcome, Outcome::NotReached);
  EXPECT_EQ(pong->actual, "not reached: the client closed its output");
  EXPECT_EQ(find(e, "ping/while-awaiting:keepalive")->verdict, Verdict::Informational);
}

TEST(Evaluation, CrashIsAFailNamingTheSignal) {
  auto o = clean_run();
  o.driver->kind = ChildOutcome::Kind::kSignaled;
  o.driver->signal = 13;
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Fail);
  EXPECT_NE(find(e, "ping/while-awaiting:driver:exit")->actual.find("SIGPIPE"), std::string::npos);
}

TEST(Evaluation, HangIsAFailUnlessTheScenarioSaysInfo) {
  auto o = clean_run();
  o.driver->kind = ChildOutcome::Kind::kTimedOut;
  EXPECT_EQ(evaluate_case(make_scenario(), o, kRefs).verdict, Verdict::Fail);
  auto scenario = make_scenario();
  scenario.deadline_kill = Level::Info;
  const auto e = evaluate_case(scenario, o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:driver:completed")->verdict, Verdict::Informational);
}

TEST(Evaluation, WrongCallResultFailsTheDriverCheck) {
  auto o = clean_run();
  o.driver_report = parse_driver_output(
      "{\"step\":0,\"op\":\"connect\",\"ok\":true}\n"
      "{\"step\":1,\"op\":\"call_tool\",\"ok\":true,\"result\":{}}\n"
      "{\"step\":2,\"op\":\"close\",\"ok\":true}\n",
      make_scenario().driver_steps);
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  const auto* check = find(e, "ping/while-awaiting:call-result-delivered");
  EXPECT_EQ(check->verdict, Verdict::Fail);
  EXPECT_NE(check->actual.find("\"result\":{}"), std::string::npos);
}

// Regression: a clean exit after the mock server gave up at the case deadline (a close that
// blocked until the server dropped the connection) passed driver:completed.
TEST(Evaluation, AStepThatReturnedOnlyAtTheServersDeadlineFailsDriverCompleted) {
  auto o = clean_run();
  o.transcript.end_reason = "deadline";
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  const auto* check = find(e, "ping/while-awaiting:driver:completed");
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->verdict, Verdict::Fail);
  EXPECT_NE(check->actual.find("step 2 (close) returned only after that"), std::string::npos)
      << check->actual;
  EXPECT_EQ(find(evaluate_case(make_scenario(), clean_run(), kRefs),
                 "ping/while-awaiting:driver:completed"),
            nullptr);
}

// Regression (issue: a hang read as a crash): a Node.js driver whose call never returned
// exited 13 once the mock server ended its last stream at the case deadline, and the case read
// "the client crashed: exit 13". A driver that exits with a step unreported only after the
// server gave up hung.
TEST(Evaluation, RegressionAHangWasReadAsACrash) {
  auto o = clean_run();
  o.transcript.end_reason = "deadline";
  o.driver->exit_code = 13;
  o.driver_report = parse_driver_output("{\"step\":0,\"op\":\"connect\",\"ok\":true}\n",
                                        make_scenario().driver_steps);
  auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:driver:exit"), nullptr);
  const auto* hung = find(e, "ping/while-awaiting:driver:completed");
  ASSERT_NE(hung, nullptr);
  EXPECT_EQ(hung->verdict, Verdict::Fail);
  EXPECT_EQ(hung->actual,
            "the client hung: step 1 (call_tool) never returned before the case deadline; its "
            "exit 13 came only once the mock server gave up");
  // Every step reported, or the server still there: an exit 13 is a crash.
  o.transcript.end_reason = "eof";
  e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:driver:exit")->actual, "the client crashed: exit 13");
}

// Regression: a client that started slowly on a loaded machine read "no initialize: the case
// deadline passed" and "the client hung"; one that does not start within the start-up budget
// is said so, and nothing of the case's subject is judged.
TEST(Evaluation, RegressionASlowStartReadAsAFailOfTheSubject) {
  auto o = clean_run();
  o.driver->kind = ChildOutcome::Kind::kTimedOut;
  o.driver->wall = std::chrono::milliseconds(34000);
  o.driver_report = {};
  o.transcript.startup_exceeded_ms = 30000;
  o.transcript.checks = {check_record("handshake", Outcome::Broken)};
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Fail);
  ASSERT_EQ(e.checks.size(), 1u);
  EXPECT_EQ(e.checks[0].id, "ping/while-awaiting:driver:started");
  EXPECT_EQ(e.checks[0].actual.rfind("the client did not start within 30.0 s", 0), 0u)
      << e.checks[0].actual;
  ASSERT_NE(find_not_judged(e, "ping/while-awaiting:pong"), nullptr);
  EXPECT_EQ(find_not_judged(e, "ping/while-awaiting:pong")->cause, NotJudgedCheck::Cause::kPremise);
  EXPECT_NE(find_not_judged(e, "ping/while-awaiting:call-result-delivered"), nullptr);
}

// A pong late only because the machine was overloaded (the mock server's own timers ran late
// over its window) is not judged, and says why.
TEST(Evaluation, ALatePongOnAnOverloadedMachineIsNotJudged) {
  auto o = clean_run();
  o.transcript.checks[1].outcome = Outcome::NotJudged;
  o.transcript.checks[1].actual = "pong after 2300 ms; too late (cap 2000 ms)";
  o.transcript.checks[1].details = {{"overloaded_timers_ms", 180.5}};
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Pass);
  const auto* pong = find_not_judged(e, "ping/while-awaiting:pong");
  ASSERT_NE(pong, nullptr);
  EXPECT_EQ(pong->cause, NotJudgedCheck::Cause::kOverload);
  EXPECT_EQ(
      pong->why.rfind("this machine was overloaded (the mock server's timers 180.5 ms late)", 0),
      0u)
      << pong->why;
}

// A call lost behind a skip the client was entitled to (a stream it did not resume, a
// SHOULD) hangs because of that skip: the hang is not judged, as the checks behind it are not.
TEST(Evaluation, AHangBehindASkippedShouldIsNotJudged) {
  auto o = clean_run();
  o.driver->kind = ChildOutcome::Kind::kTimedOut;
  o.transcript.unsupported = "the client did not resume post:1 (SHOULD)";
  o.transcript.checks.resize(1);
  auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:driver:completed"), nullptr);
  const auto* hung = find_not_judged(e, "ping/while-awaiting:driver:completed");
  ASSERT_NE(hung, nullptr);
  EXPECT_EQ(hung->cause, NotJudgedCheck::Cause::kSkip);
  // Without the skip the same hang fails the case.
  o.transcript.unsupported.reset();
  e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:driver:completed")->verdict, Verdict::Fail);
}

// Regression: a driver check about the client's reaction to a server behaviour was judged
// although the server never behaved so (the script had stopped first).
TEST(Evaluation, ADriverCheckIsJudgedOnlyOnceItsCauseWasSent) {
  auto scenario = make_scenario();
  scenario.driver_checks[0].check.given = {"ping"};
  scenario.driver_checks[0].check.premise = given_premise({"ping"});
  auto o = clean_run();
  o.transcript.last_event = "script stopped at step 1 (expect): expected message did not arrive";
  auto e = evaluate_case(scenario, o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:call-result-delivered"), nullptr);
  const auto* check = find_not_judged(e, "ping/while-awaiting:call-result-delivered");
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->why,
            "its premise never happened: the server sent \"ping\" (it never did: script stopped "
            "at step 1 (expect): expected message did not arrive)");
  o.transcript.sent_labels = {"ping"};
  e = evaluate_case(scenario, o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:call-result-delivered")->outcome, Outcome::Met);
}

// `serve`: a person drove the client, no driver ran. The driver-side checks are listed as not
// judged, apart from the checks, and take no part in the verdict; the mock's facts are judged
// as in a run.
TEST(Evaluation, WithoutADriverTheDriverSideChecksAreNotJudged) {
  auto o = clean_run();
  o.driver.reset();
  o.driver_report = DriverReport{};
  auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Pass) << "the mock's facts, as in a run";
  EXPECT_EQ(find(e, "ping/while-awaiting:driver:exit"), nullptr);
  EXPECT_EQ(find(e, "ping/while-awaiting:call-result-delivered"), nullptr);
  ASSERT_EQ(e.not_judged.size(), 3u);
  EXPECT_EQ(e.not_judged[0].id, "ping/while-awaiting:driver:exit");
  EXPECT_EQ(e.not_judged[1].id, "ping/while-awaiting:driver:completed");
  EXPECT_EQ(e.not_judged[2].id, "ping/while-awaiting:call-result-delivered");
  EXPECT_EQ(e.not_judged[2].level, Level::Must);
  EXPECT_EQ(e.not_judged[2].expected,
            R"(step 1 (call_tool) reports {"ok":true,"result":{"content":[{"text":"nonce"}]}})");

  o.transcript.checks[1] = check_record("pong", Outcome::Broken);
  e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Fail);
  EXPECT_EQ(find(e, "ping/while-awaiting:pong")->verdict, Verdict::Fail);

  EXPECT_TRUE(evaluate_case(make_scenario(), clean_run(), kRefs).not_judged.empty())
      << "with a driver every check is judged";
}

TEST(Evaluation, Exit127IsUnsupported) {
  auto o = clean_run();
  o.driver->exit_code = 127;
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Unsupported);
  EXPECT_TRUE(e.checks.empty());
}

// The INFO rule is the same for every kind of check: met or not, INFORMATIONAL.
TEST(Evaluation, InfoChecksAreInformationalWhateverTheirSource) {
  const auto e = evaluate_case(make_scenario(), clean_run(), kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:keepalive")->verdict, Verdict::Informational);
  auto scenario = make_scenario();
  scenario.driver_checks[0].check.level = Level::Info;
  const auto info = evaluate_case(scenario, clean_run(), kRefs);
  EXPECT_EQ(find(info, "ping/while-awaiting:call-result-delivered")->verdict,
            Verdict::Informational);
}

TEST(Evaluation, UnreadableTranscriptIsAnErrorNeverAFail) {
  auto o = clean_run();
  o.transcript.problem = "line 3: unknown record kind \"verdict\"";
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Error);
  EXPECT_NE(e.reason.find("unknown record kind"), std::string::npos);
  EXPECT_TRUE(e.checks.empty());
}

TEST(Evaluation, DriverExit127IsTypedAsTheDriversUnsupported) {
  auto o = clean_run();
  o.driver->exit_code = 127;
  EXPECT_EQ(evaluate_case(make_scenario(), o, kRefs).unsupported, CaseResult::Unsupported::kDriver);
}

TEST(Evaluation, SuiteTroubleIsAnErrorNotTheClientsFault) {
  auto fatal = clean_run();
  fatal.transcript.fatal = "cannot read script";
  EXPECT_EQ(evaluate_case(make_scenario(), fatal, kRefs).verdict, Verdict::Error);
  auto garbage = clean_run();
  garbage.driver_report.problem = "stdout line 1 is not a JSON object";
  EXPECT_EQ(evaluate_case(make_scenario(), garbage, kRefs).verdict, Verdict::Error);
  auto short_report = clean_run();
  short_report.driver_report.steps.resize(1);
  const auto e = evaluate_case(make_scenario(), short_report, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Error);
  EXPECT_NE(e.reason.find("1 of 3 steps"), std::string::npos);
}

TEST(Evaluation, NoTranscriptMeansTheServerWasNeverStarted) {
  auto o = clean_run();
  o.transcript = TranscriptRecords{};
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:transport:server-started")->verdict, Verdict::Fail);
  EXPECT_EQ(find(e, "ping/while-awaiting:pong")->actual,
            "not reached: the client never started the server");
}

// ping/idle over HTTP: a client that never opens the GET stream MAY do so.
TEST(Evaluation, UnsupportedRecordMakesTheCaseUnsupportedUnlessSomethingFailed) {
  auto o = clean_run();
  o.transcript.checks.resize(1);  // the pong step was never reached
  o.transcript.unsupported = "the client never opened the GET stream";
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Unsupported);
  EXPECT_EQ(e.reason, "the client never opened the GET stream");

  // A broken handshake is a finding of the run, not this case's; a pong that failed before the
  // skip is.
  o.transcript.checks[0] = check_record("handshake", Outcome::Broken);
  EXPECT_EQ(evaluate_case(make_scenario(), o, kRefs).verdict, Verdict::Unsupported);
  o.transcript.checks.push_back(check_record("pong", Outcome::Broken));
  EXPECT_EQ(evaluate_case(make_scenario(), o, kRefs).verdict, Verdict::Fail);
}

// Regression (http/ping-on-resumed-stream): a client that does not resume a stream the server
// closed misses a SHOULD; the MUST checks that needed the resumed stream were reported FAIL as
// not reached, which made the SHOULD a MUST. Now they are not judged, and the case is the
// SHOULD's NON_STRICT.
TEST(Evaluation, ChecksBehindASkippedShouldAreNotJudged) {
  auto scenario = make_scenario();
  scenario.script_checks.insert(scenario.script_checks.begin() + 1,
                                {"resumed", Level::Should, {"ping.respond-promptly"}});
  scenario.driver_checks[0].check.given = {"ping"};
  auto o = clean_run();
  o.transcript.checks = {check_record("handshake", Outcome::Met),
                         check_record("resumed", Outcome::Broken, 5, Level::Should)};
  o.transcript.unsupported = "the client did not resume post:2 (SHOULD)";
  const auto e = evaluate_case(scenario, o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::NonStrict);
  EXPECT_EQ(find(e, "ping/while-awaiting:resumed")->verdict, Verdict::NonStrict);
  for (const char* id : {"ping/while-awaiting:pong", "ping/while-awaiting:call-result-delivered"}) {
    EXPECT_EQ(find(e, id), nullptr) << id;
    EXPECT_NE(find_not_judged(e, id), nullptr) << id;
  }
  // Without the skip record the same transcript fails: the client stopped short of a MUST.
  o.transcript.unsupported.reset();
  EXPECT_EQ(evaluate_case(scenario, o, kRefs).verdict, Verdict::Fail);
}

TEST(Evaluation, ServerRecordedChecksAreKept) {
  auto o = clean_run();
  auto flood = check_record("transport:line-too-long", Outcome::Broken);
  flood.implicit = true;
  o.transcript.checks.push_back(flood);
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  const auto* check = find(e, "ping/while-awaiting:transport:line-too-long");
  EXPECT_EQ(check->verdict, Verdict::Fail);
  EXPECT_EQ(check->kind, CheckKind::Collateral)
      << "a server-recorded rule is not the case's own subject";
  EXPECT_EQ(find(e, "ping/while-awaiting:pong")->kind, CheckKind::Subject);
  EXPECT_EQ(find(e, "ping/while-awaiting:handshake")->kind, CheckKind::Collateral)
      << "the handshake is lifecycle, not the case's subject";
  EXPECT_EQ(find(e, "ping/while-awaiting:driver:exit")->kind, CheckKind::Fate);
}

// Regression (item 1 of the check model): a GET before initialize recorded
// http:before-initialize (INFO) in every Streamable HTTP case, and "the worst check" made every
// case the client passed INFORMATIONAL. A collateral finding never changes a case's verdict.
TEST(Evaluation, RegressionCollateralInfoHidAPass) {
  auto o = clean_run();
  o.transcript.checks.push_back(check_record("http:before-initialize", Outcome::Broken));
  o.transcript.checks.back().implicit = true;
  auto scenario = make_scenario();
  scenario.script_checks.pop_back();  // the INFO check: only MUST subject checks remain
  const auto e = evaluate_case(scenario, o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:http:before-initialize")->verdict, Verdict::Informational);
  EXPECT_EQ(e.verdict, Verdict::Pass);
  // A failing finding does not fail the case either: it fails the run, once (Finding).
  o.transcript.checks.back() = check_record("http:session-id", Outcome::Broken);
  o.transcript.checks.back().implicit = true;
  EXPECT_EQ(evaluate_case(scenario, o, kRefs).verdict, Verdict::Pass);
}

// A case is INFORMATIONAL only when its subject is: an INFO subject check beside a passing
// MUST leaves the case PASS; a case of INFO checks alone stays INFORMATIONAL.
TEST(Evaluation, InformationalNeverHidesAPass) {
  std::vector<CheckResult> checks(2);
  checks[0].verdict = Verdict::Pass;
  checks[1].verdict = Verdict::Informational;
  EXPECT_EQ(subject_verdict(checks), Verdict::Pass);
  checks[0].kind = CheckKind::Fate;  // a clean exit alone is no evidence about the subject
  EXPECT_EQ(subject_verdict(checks), Verdict::Informational);
  checks[1].kind = CheckKind::Collateral;
  EXPECT_EQ(subject_verdict(checks), std::nullopt);
  checks[0].verdict = Verdict::Fail;  // a crash fails the case whatever else
  EXPECT_EQ(subject_verdict(checks), Verdict::Fail);
}

// Regression (item 4 of the check model): http/pong-headers reported its header checks
// "broken: no response to hdr-ping" for a client that never POSTed a pong. A check whose
// premise never happened is not judged, with the premise named.
TEST(Evaluation, RegressionAHeaderCheckWasJudgedWithoutAPongPost) {
  auto scenario = make_scenario();
  scenario.script_checks.push_back({"session-header", Level::Must, {"http.session-header"}});
  scenario.script_checks.back().premise = "a POST carried the client's response to \"ping\"";
  auto o = clean_run();
  o.transcript.checks[1] = check_record("pong", Outcome::Broken);
  o.transcript.checks.push_back(check_record("session-header", Outcome::NotJudged));
  o.transcript.checks.back().actual = "no POST carried a response to \"ping\"";
  const auto e = evaluate_case(scenario, o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:session-header"), nullptr);
  const auto* header = find_not_judged(e, "ping/while-awaiting:session-header");
  ASSERT_NE(header, nullptr);
  EXPECT_NE(header->why.find("its premise never happened: a POST carried the client's response"),
            std::string::npos)
      << header->why;
  EXPECT_EQ(e.verdict, Verdict::Fail) << "the pong itself is judged";
}

// Regression (item 3 of the check model): citations gate checks, not only cases. A check whose
// sentences start after the session's revision is not judged; the rest of the case is.
TEST(Evaluation, RegressionACheckCitingOnlyLaterRevisionsWasJudged) {
  auto scenario = make_scenario();
  scenario.script_checks.push_back({"cancelled", Level::Should, {"lifecycle.timeouts"}});
  auto o = clean_run();
  o.transcript.negotiated = "2024-11-05";
  o.transcript.checks.push_back(check_record("cancelled", Outcome::Broken, 5, Level::Should));
  auto e = evaluate_case(scenario, o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:cancelled"), nullptr);
  ASSERT_NE(find_not_judged(e, "ping/while-awaiting:cancelled"), nullptr);
  EXPECT_NE(e.verdict, Verdict::NonStrict);
  o.transcript.negotiated = "2025-11-25";
  e = evaluate_case(scenario, o, kRefs);
  EXPECT_EQ(find(e, "ping/while-awaiting:cancelled")->verdict, Verdict::NonStrict);
}

// When no check of the subject can be judged, the case says so and why: UNSUPPORTED.
TEST(Evaluation, NoSubjectCheckJudgedIsUnsupportedWithTheReason) {
  auto scenario = make_scenario();
  scenario.script_checks = {{"cancelled", Level::Should, {"lifecycle.timeouts"}}};
  scenario.driver_checks.clear();
  auto o = clean_run();
  o.transcript.negotiated = "2024-11-05";
  o.transcript.checks = {check_record("cancelled", Outcome::Broken, 5, Level::Should)};
  const auto e = evaluate_case(scenario, o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Unsupported);
  EXPECT_EQ(e.unsupported, CaseResult::Unsupported::kRevision);
  EXPECT_NE(e.reason.find("no check of the case's subject could be judged"), std::string::npos)
      << e.reason;
}

// Regression (revision gating by the negotiated version): the mock server answers the version
// the client offers, so a client offering 2025-03-26 under --revision 2025-11-25 ran a case
// that applies from 2025-06-18 on, and was judged by it.
TEST(Evaluation, ACaseOutsideTheNegotiatedRevisionIsUnsupportedAfterTheRun) {
  auto scenario = make_scenario();
  scenario.revision_from = "2025-06-18";
  auto o = clean_run();
  o.transcript.checks[1] = check_record("pong", Outcome::Broken);
  o.transcript.negotiated = "2025-03-26";
  auto e = evaluate_case(scenario, o, kRefs);
  EXPECT_EQ(e.verdict, Verdict::Unsupported);
  EXPECT_EQ(e.unsupported, CaseResult::Unsupported::kRevision);
  EXPECT_EQ(e.reason, "the client negotiated 2025-03-26; the case applies from 2025-06-18");
  EXPECT_TRUE(e.checks.empty());

  scenario.revision_from = "2024-11-05";
  scenario.revision_until = "2025-06-18";
  o.transcript.negotiated = "2025-11-25";
  EXPECT_EQ(evaluate_case(scenario, o, kRefs).reason,
            "the client negotiated 2025-11-25; the case applies until 2025-06-18");

  o.transcript.negotiated = "2025-06-18";
  EXPECT_EQ(evaluate_case(scenario, o, kRefs).verdict, Verdict::Fail) << "inside: judged";
}

// Regression (item 2 of the check model): a client offering 2024-11-05 on Streamable HTTP had
// 49 of 50 cases UNSUPPORTED ("Streamable HTTP exists from 2025-03-26") though it never
// ponged, and the ping MUST exists in 2024-11-05. The ping checks are judged at every
// revision that has ping (the mock answers 2025-03-26 there: transport:revision).
TEST(Evaluation, RegressionARevisionTheTransportLacksExcusedAWholeCase) {
  auto o = clean_run();
  o.transport = "streamable-http";
  o.transcript.negotiated = "2024-11-05";
  o.transcript.checks[1] = check_record("pong", Outcome::Broken);
  EXPECT_EQ(evaluate_case(make_scenario(), o, kRefs).verdict, Verdict::Fail);
}

// Regression (protocol-version header): a degraded http:protocol-version, then a broken one
// (the mock records again only when worse), showed the check twice; the worst stands.
TEST(Evaluation, AServerRecordedCheckRecordedAgainWorseKeepsTheWorst) {
  auto o = clean_run();
  auto degraded = check_record("http:protocol-version", Outcome::Degraded, 7);
  degraded.implicit = true;
  auto broken = check_record("http:protocol-version", Outcome::Broken, 8);
  broken.implicit = true;
  o.transcript.checks.push_back(degraded);
  o.transcript.checks.push_back(broken);
  const auto e = evaluate_case(make_scenario(), o, kRefs);
  std::size_t count = 0;
  for (const auto& c : e.checks) count += c.id == "ping/while-awaiting:http:protocol-version";
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(find(e, "ping/while-awaiting:http:protocol-version")->verdict, Verdict::Fail);
}

// An official harness (official_harness.hpp): no step lines, no driver checks, and its exit
// status says whether it completed.
Scenario harness_scenario() {
  Scenario s = make_scenario();
  s.driver_steps = json::parse(R"([{"op":"connect"},{"op":"list_tools"},{"op":"close"}])");
  s.driver_checks.clear();
  return s;
}

CaseObservations harness_run(int exit_code) {
  auto o = clean_run();
  o.official_harness = true;
  o.driver->exit_code = exit_code;
  o.driver_report = parse_driver_output("the harness logs what it likes\n", json::array());
  return o;
}

TEST(Evaluation, AHarnessThatExitsZeroCompletedWhateverItPrinted) {
  const auto e = evaluate_case(harness_scenario(), harness_run(0), kRefs);
  EXPECT_EQ(e.verdict, Verdict::Pass);  // its INFO keepalive check hides no PASS, as for a driver
  const auto* exit = find(e, "ping/while-awaiting:harness:exit");
  ASSERT_NE(exit, nullptr);
  EXPECT_EQ(exit->verdict, Verdict::Pass);
  EXPECT_EQ(find(e, "ping/while-awaiting:driver:exit"), nullptr);
  EXPECT_EQ(find(e, "ping/while-awaiting:pong")->verdict, Verdict::Pass);
}

TEST(Evaluation, AHarnessExitingNonZeroDidNotCompleteAnd127IsNoOptOut) {
  for (const int status : {1, 127}) {
    const auto e = evaluate_case(harness_scenario(), harness_run(status), kRefs);
    EXPECT_EQ(e.verdict, Verdict::Fail) << status;
    const auto* exit = find(e, "ping/while-awaiting:harness:exit");
    ASSERT_NE(exit, nullptr);
    EXPECT_EQ(exit->verdict, Verdict::Fail);
    EXPECT_NE(exit->actual.find("the harness did not complete: exit " + std::to_string(status)),
              std::string::npos)
        << exit->actual;
  }
}

// Regression (harness:exit failed a harness whose call failed after the server's own
// violation, where a driver gets NON_STRICT): its exit takes the level of the driver checks it
// stands in for; killed by a signal it crashed, which stays MUST.
TEST(Evaluation, RegressionHarnessExitWasMustWhereItsDriverChecksAreShould) {
  auto s = harness_scenario();
  s.harness_exit = Level::Should;
  const auto exited = evaluate_case(s, harness_run(1), kRefs);
  EXPECT_EQ(find(exited, "ping/while-awaiting:harness:exit")->verdict, Verdict::NonStrict);
  EXPECT_EQ(exited.verdict, Verdict::NonStrict);
  auto crashed = harness_run(0);
  crashed.driver->kind = ChildOutcome::Kind::kSignaled;
  crashed.driver->signal = 11;
  EXPECT_EQ(find(evaluate_case(s, crashed, kRefs), "ping/while-awaiting:harness:exit")->verdict,
            Verdict::Fail);
}

TEST(Evaluation, AHarnessThatExitedOnlyAtTheServersDeadlineHung) {
  auto o = harness_run(0);
  o.transcript.end_reason = "deadline";
  // The evaluation outlives the pointer into it (a temporary here was a use after free,
  // found by ThreadSanitizer).
  const auto evaluation = evaluate_case(harness_scenario(), o, kRefs);
  const auto* check = find(evaluation, "ping/while-awaiting:driver:completed");
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->verdict, Verdict::Fail);
  EXPECT_NE(check->actual.find("the harness exited only after that"), std::string::npos);
}

}  // namespace
}  // namespace mcpping
