#include "conformance/evaluation.hpp"

#include <map>

#include "conformance/judge.hpp"
#include "core/pattern.hpp"
#include "core/text.hpp"
#include "reports/json_report.hpp"

namespace mcpping {

namespace {

// A check as the runner observed it (driver exit, driver lines, a missing transcript).
struct Observation {
  CheckDef check;
  Outcome outcome = Outcome::Met;
  std::string expected;
  std::string actual;
  bool collateral = false;
};

CheckResult judged(const std::string& case_id, const Observation& o, const SpecReferences& refs) {
  CheckResult check;
  check.id = case_id + ":" + o.check.id;
  check.short_id = o.check.id;
  check.level = o.check.level;
  check.outcome = o.outcome;
  check.verdict = judge(o.check.level, o.outcome);
  check.collateral = o.collateral;
  check.spec = resolve_spec(o.check.spec, refs);
  check.expected = o.expected;
  check.actual = o.actual;
  return check;
}

CheckResult judged(const std::string& case_id, const CheckRecord& record,
                   const SpecReferences& refs) {
  // The handshake and the transport rules a mock server records on its own are not the
  // case's subject: they stay visible, labelled collateral.
  const bool collateral = record.implicit || record.check.id == handshake_check().id;
  auto check = judged(
      case_id,
      Observation{record.check, record.outcome, record.expected, record.actual, collateral}, refs);
  check.latency_ms = record.latency_ms;
  if (const auto burst = record.details.find("burst"); burst != record.details.end()) {
    check.burst = burst_from_json(*burst);
  }
  check.at_ms = record.t;
  return check;
}

// Why the script never reached a check, from what the mock server recorded.
std::string why_not_reached(const TranscriptRecords& transcript) {
  if (!transcript.present) return "the client never started the server";
  if (transcript.end_reason == "interrupted")
    return "the driver had exited when the runner stopped the mock server; the script was "
           "still waiting for the client here";
  if (transcript.last_event) return *transcript.last_event;
  return transcript.ended ? "the script ended first" : "the server was stopped";
}

constexpr const char* kExpectedExit = "the driver exits 0 after attempting every step";
constexpr const char* kExpectedCompletion =
    "the driver finishes its steps before the case deadline";

// An official harness exits non-zero when its client reported an error (connect, tools/list
// or close failed), and exits 0 when it completed: that status stands in for the driver
// checks, which judge step lines a harness never prints.
Observation harness_exit(const ChildOutcome& harness) {
  const bool completed = harness.kind == ChildOutcome::Kind::kExited && harness.exit_code == 0;
  return Observation{{"harness:exit", Level::Must, {"suite.client-survives"}},
                     completed ? Outcome::Met : Outcome::Broken,
                     "the harness connects, lists tools, closes and exits 0",
                     completed ? "exit 0"
                               : "the harness did not complete: " + describe(harness) +
                                     " (its client.stderr says why)"};
}

// The driver's own fate: crash, hang, or a clean exit.
std::optional<Observation> driver_fate(const Scenario& scenario, const ChildOutcome& driver,
                                       const CaseObservations& observed) {
  if (observed.official_harness && driver.kind != ChildOutcome::Kind::kTimedOut &&
      driver.kind != ChildOutcome::Kind::kSpawnFailed) {
    return harness_exit(driver);
  }
  const std::vector<std::string> spec = {"suite.client-survives"};
  const std::string expected_exit = kExpectedExit;
  switch (driver.kind) {
    case ChildOutcome::Kind::kExited:
      if (driver.exit_code == 0) {
        return Observation{
            {"driver:exit", Level::Must, spec}, Outcome::Met, expected_exit, "exit 0"};
      }
      [[fallthrough]];
    case ChildOutcome::Kind::kSignaled:
      return Observation{{"driver:exit", Level::Must, spec},
                         Outcome::Broken,
                         expected_exit,
                         "the client crashed: " + describe(driver)};
    case ChildOutcome::Kind::kTimedOut:
      return Observation{{"driver:completed", scenario.deadline_kill, spec},
                         Outcome::Broken,
                         kExpectedCompletion,
                         "the client hung: " + describe(driver)};
    case ChildOutcome::Kind::kSpawnFailed:
      break;  // an ERROR, decided before any check
  }
  return std::nullopt;
}

// A clean exit that came only because the mock server gave up at the case deadline: some
// step (typically close) waited on a server that was still there.
std::optional<Observation> hung_step(const Scenario& scenario, const ChildOutcome& driver,
                                     const CaseObservations& observed) {
  const auto& steps = observed.driver_report.steps;
  if (driver.kind != ChildOutcome::Kind::kExited || driver.exit_code != 0 ||
      (steps.empty() && !observed.official_harness) || observed.transcript.end_reason != "deadline")
    return std::nullopt;
  const std::string late = steps.empty() ? "the harness exited only after that"
                                         : "step " + std::to_string(steps.back().step) + " (" +
                                               steps.back().op + ") returned only after that";
  return Observation{{"driver:completed", scenario.deadline_kill, {"suite.client-survives"}},
                     Outcome::Broken,
                     kExpectedCompletion,
                     "the client was still connected when the mock server gave up at the case "
                     "deadline; " +
                         late};
}

std::string driver_line_expected(const Scenario& scenario, const DriverCheck& driver_check) {
  const std::string op = scenario.driver_steps[driver_check.step].value("op", "");
  return "step " + std::to_string(driver_check.step) + " (" + op + ") reports " +
         driver_check.expect.dump();
}

Observation driver_line(const Scenario& scenario, const DriverCheck& driver_check,
                        const CaseObservations& observed) {
  const auto& report = observed.driver_report;
  const std::string op = scenario.driver_steps[driver_check.step].value("op", "");
  const std::string expected = driver_line_expected(scenario, driver_check);
  // No blame and no credit without cause: the check is about the client's reaction to what
  // the server sent under these labels.
  for (const auto& label : driver_check.given) {
    if (!observed.transcript.sent_labels.count(label)) {
      return {driver_check.check, Outcome::NotReached, expected,
              "not reached: the server never sent \"" + label + "\" (" +
                  why_not_reached(observed.transcript) + ")"};
    }
  }
  if (driver_check.step >= report.steps.size()) {
    return {driver_check.check, Outcome::Broken, expected,
            "the driver printed no line for step " + std::to_string(driver_check.step) + " (" + op +
                ")"};
  }
  const Json& line = report.steps[driver_check.step].line;
  const bool met = matches(driver_check.expect, line, Captures{});
  return {driver_check.check, met ? Outcome::Met : Outcome::Broken, expected, safe_dump(line)};
}

// The session ran at a revision the case, or its transport, does not cover: the mock server
// answers the version the client offers, so --revision alone cannot decide it.
std::optional<std::string> negotiated_elsewhere(const Scenario& scenario,
                                                const CaseObservations& observed) {
  const auto& negotiated = observed.transcript.negotiated;
  if (!negotiated || !revision_index(*negotiated)) return std::nullopt;
  const auto said = "the client negotiated " + *negotiated + "; ";
  if (*revision_index(*negotiated) < *revision_index(scenario.revision_from))
    return said + "the case applies from " + scenario.revision_from;
  if (*revision_index(*negotiated) > *revision_index(scenario.revision_until))
    return said + "the case applies until " + scenario.revision_until;
  if (auto absent = transport_absent_at(observed.transport, *negotiated)) return said + *absent;
  return std::nullopt;
}

// Facts that make the case unjudgeable before any check: the suite's or the driver's.
std::optional<Evaluation> before_checks(const Scenario& scenario,
                                        const CaseObservations& observed) {
  Evaluation out;
  // No driver: nothing of it can make the case unjudgeable.
  const ChildOutcome driver = observed.driver.value_or(ChildOutcome{});
  if (driver.kind == ChildOutcome::Kind::kSpawnFailed) {
    out.verdict = Verdict::Error;
    out.reason = "the driver " + describe(driver);
  } else if (driver.kind == ChildOutcome::Kind::kExited &&
             driver.exit_code == kDriverUnsupportedExit && !observed.official_harness) {
    out.verdict = Verdict::Unsupported;
    out.unsupported = CaseResult::Unsupported::kDriver;
    out.reason = "the driver exited 127: it does not support the transport '" + observed.transport +
                 "' or an op of this case";
  } else if (observed.transcript.fatal) {
    out.verdict = Verdict::Error;
    out.reason = "the mock server failed: " + *observed.transcript.fatal;
  } else if (observed.transcript.problem) {
    out.verdict = Verdict::Error;
    out.reason =
        "the suite cannot read the mock server's transcript: " + *observed.transcript.problem;
  } else if (observed.driver_report.problem && !observed.official_harness) {
    out.verdict = Verdict::Error;
    out.reason = "the driver broke the driver contract: " + *observed.driver_report.problem;
  } else if (observed.driver && driver.kind == ChildOutcome::Kind::kExited &&
             driver.exit_code == 0 && !observed.official_harness &&
             observed.driver_report.steps.size() < scenario.driver_steps.size()) {
    out.verdict = Verdict::Error;
    out.reason = "the driver broke the driver contract: it exited 0 after reporting " +
                 std::to_string(observed.driver_report.steps.size()) + " of " +
                 std::to_string(scenario.driver_steps.size()) + " steps";
  } else if (auto elsewhere = negotiated_elsewhere(scenario, observed)) {
    out.verdict = Verdict::Unsupported;
    out.unsupported = CaseResult::Unsupported::kRevision;
    out.reason = std::move(*elsewhere);
  } else {
    return std::nullopt;
  }
  return out;
}

}  // namespace

Evaluation evaluate_case(const Scenario& scenario, const CaseObservations& observed,
                         const SpecReferences& refs) {
  if (auto early = before_checks(scenario, observed)) return std::move(*early);
  Evaluation out;
  const auto& transcript = observed.transcript;

  if (observed.driver) {
    if (auto fate = driver_fate(scenario, *observed.driver, observed)) {
      out.checks.push_back(judged(scenario.id, *fate, refs));
    }
    if (auto hung = hung_step(scenario, *observed.driver, observed))
      out.checks.push_back(judged(scenario.id, *hung, refs));
  } else {
    out.not_judged.push_back({scenario.id + ":driver:exit", Level::Must, kExpectedExit});
    out.not_judged.push_back(
        {scenario.id + ":driver:completed", scenario.deadline_kill, kExpectedCompletion});
  }
  if (!transcript.present) {
    out.checks.push_back(judged(
        scenario.id,
        Observation{{"transport:server-started", Level::Must, {"suite.client-starts-server"}},
                    Outcome::Broken,
                    "the client starts the server it was given",
                    "no transcript: the client never started the mock server",
                    true},
        refs));
  }

  // The script's checks, in script order; a check the mock server never recorded was not
  // reached (the client died, hung or broke an earlier step).
  std::vector<bool> used(transcript.checks.size(), false);
  for (const auto& def : scenario.script_checks) {
    if (!def.applies_to(observed.transport)) continue;
    std::optional<std::size_t> found;
    for (std::size_t i = 0; i < transcript.checks.size(); ++i) {
      if (!used[i] && transcript.checks[i].check.id == def.id) {
        found = i;
        break;
      }
    }
    if (found) {
      used[*found] = true;
      out.checks.push_back(judged(scenario.id, transcript.checks[*found], refs));
    } else {
      out.checks.push_back(judged(
          scenario.id,
          Observation{def, Outcome::NotReached, "", "not reached: " + why_not_reached(transcript)},
          refs));
    }
  }
  // Checks the server records on its own (a flooded line, an invalid message, HTTP rules).
  // Each is recorded once, or again when a later request broke it worse (a degraded
  // http:protocol-version, then a broken one): the worst stands.
  std::map<std::string, std::size_t> own;  // implicit check id -> index in out.checks
  for (std::size_t i = 0; i < transcript.checks.size(); ++i) {
    if (used[i]) continue;
    auto check = judged(scenario.id, transcript.checks[i], refs);
    const auto seen = transcript.checks[i].implicit ? own.find(check.id) : own.end();
    if (seen == own.end()) {
      if (transcript.checks[i].implicit) own.emplace(check.id, out.checks.size());
      out.checks.push_back(std::move(check));
    } else if (worst(out.checks[seen->second].verdict, check.verdict) !=
               out.checks[seen->second].verdict) {
      out.checks[seen->second] = std::move(check);
    }
  }
  for (const auto& driver_check : scenario.driver_checks) {
    if (!observed.driver) {
      out.not_judged.push_back({scenario.id + ":" + driver_check.check.id, driver_check.check.level,
                                driver_line_expected(scenario, driver_check)});
      continue;
    }
    out.checks.push_back(judged(scenario.id, driver_line(scenario, driver_check, observed), refs));
  }

  // The script stopped because the client skipped something the rest of the case needs and
  // that it MAY skip (an HTTP client that never opens the GET stream) or SHOULD not (a stream
  // it never resumes, recorded by its own SHOULD check): the checks the script never reached
  // are not judged.
  if (transcript.unsupported) {
    for (auto& check : out.checks) check.verdict = judge_behind_skip(check.level, check.outcome);
  }
  for (const auto& check : out.checks) {
    out.verdict = worst(out.verdict, check.verdict);
    if (!out.focus_ms && check.verdict != Verdict::Pass && check.at_ms) out.focus_ms = check.at_ms;
  }
  // ... and the case does not apply, unless what the client did do fell short.
  if (transcript.unsupported &&
      (out.verdict == Verdict::Pass || out.verdict == Verdict::Informational)) {
    out.verdict = Verdict::Unsupported;
    out.unsupported = CaseResult::Unsupported::kClient;
    out.reason = *transcript.unsupported;
  }
  return out;
}

}  // namespace mcpping
