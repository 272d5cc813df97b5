#include "conformance/evaluation.hpp"

#include <algorithm>
#include <map>

#include "conformance/judge.hpp"
#include "core/check_registry.hpp"
#include "core/pattern.hpp"
#include "core/text.hpp"
#include "reports/json_report.hpp"

namespace mcpping {

namespace {

// `at_ms`: the record's time in the transcript, for a record of the mock server's.
CheckResult judged(const std::string& case_id, const CheckRecord& record,
                   const SpecReferences& refs, std::optional<double> at_ms = std::nullopt) {
  CheckResult check;
  check.id = case_id + ":" + record.check.id;
  check.short_id = record.check.id;
  check.level = record.check.level;
  check.outcome = record.outcome;
  check.verdict = judge(record.check.level, record.outcome);
  check.kind = record.check.kind;
  check.spec = resolve_spec(record.check.spec, refs);
  check.expected = record.expected;
  check.actual = record.actual;
  check.latency_ms = record.latency_ms;
  check.burst = record.burst;
  check.at_ms = at_ms;
  return check;
}

// A check the runner observed itself (driver exit, driver lines, a missing transcript).
CheckRecord observation(CheckDef check, Outcome outcome, std::string expected, std::string actual) {
  CheckRecord record;
  record.check = std::move(check);
  record.outcome = outcome;
  record.expected = std::move(expected);
  record.actual = std::move(actual);
  return record;
}

// The same of built-in check `id`, with the registry's Expected.
CheckRecord builtin_observation(std::string_view id, Outcome outcome, std::string actual) {
  return observation(builtin_check(id), outcome, std::string(builtin_expected(id)),
                     std::move(actual));
}

using Cause = NotJudgedCheck::Cause;

NotJudgedCheck not_judged(const std::string& case_id, const CheckDef& check, std::string expected,
                          std::string why, Cause cause) {
  return {case_id + ":" + check.id, check.id,       check.level,
          std::move(expected),      std::move(why), cause};
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

// An official harness exits non-zero when its client reported an error (connect, tools/list
// or close failed), and exits 0 when it completed: that status stands in for the driver
// checks, which judge step lines a harness never prints, at their level. Killed by a signal,
// it crashed: MUST, as driver:exit.
CheckRecord harness_exit(const Scenario& scenario, const ChildOutcome& harness) {
  const bool completed = harness.kind == ChildOutcome::Kind::kExited && harness.exit_code == 0;
  auto record = builtin_observation(
      "harness:exit", completed ? Outcome::Met : Outcome::Broken,
      completed
          ? "exit 0"
          : "the harness did not complete: " + describe(harness) + " (its client.stderr says why)");
  if (harness.kind == ChildOutcome::Kind::kExited) record.check.level = scenario.harness_exit;
  return record;
}

// driver:completed broken, at the level the case sets for a hang ("deadline_kill"), expected
// in the words of what ran: a driver, or a harness.
CheckRecord not_completed(const Scenario& scenario, const CaseObservations& observed,
                          std::string actual) {
  auto record = builtin_observation("driver:completed", Outcome::Broken, std::move(actual));
  record.check.level = scenario.deadline_kill;
  if (observed.official_harness) record.expected = "the harness completes before the case deadline";
  return record;
}

// A driver that exits with an error only once the mock server gave up at the case deadline,
// with a step still unreported, hung: the exit ends a wait, it is no crash (Node.js exits 13
// when its event loop empties while the awaited call is still pending).
std::optional<CheckRecord> exited_once_abandoned(const Scenario& scenario,
                                                 const ChildOutcome& driver,
                                                 const CaseObservations& observed) {
  const auto& steps = observed.driver_report.steps;
  if (driver.kind != ChildOutcome::Kind::kExited || driver.exit_code == 0 ||
      observed.transcript.end_reason != "deadline" ||
      (!observed.official_harness && steps.size() >= scenario.driver_steps.size()))
    return std::nullopt;
  std::string waiting = "the harness never completed";
  if (!observed.official_harness) {
    const auto& step = scenario.driver_steps[steps.size()];
    waiting =
        "step " + std::to_string(steps.size()) + " (" + step.value("op", "") + ") never returned";
  }
  return not_completed(scenario, observed,
                       "the client hung: " + waiting + " before the case deadline; its " +
                           describe(driver) + " came only once the mock server gave up");
}

// The driver's own fate: crash, hang, or a clean exit.
std::optional<CheckRecord> driver_fate(const Scenario& scenario, const ChildOutcome& driver,
                                       const CaseObservations& observed) {
  if (auto hung = exited_once_abandoned(scenario, driver, observed)) return hung;
  if (observed.official_harness && driver.kind != ChildOutcome::Kind::kTimedOut &&
      driver.kind != ChildOutcome::Kind::kSpawnFailed) {
    return harness_exit(scenario, driver);
  }
  switch (driver.kind) {
    case ChildOutcome::Kind::kExited:
      if (driver.exit_code == 0) return builtin_observation("driver:exit", Outcome::Met, "exit 0");
      [[fallthrough]];
    case ChildOutcome::Kind::kSignaled:
      return builtin_observation("driver:exit", Outcome::Broken,
                                 "the client crashed: " + describe(driver));
    case ChildOutcome::Kind::kTimedOut:
      return not_completed(scenario, observed,
                           observed.transcript.client_spoke
                               ? "the client hung: " + describe(driver)
                               : "the client never reached the mock server (no line, no request), "
                                 "and was " +
                                     describe(driver));
    case ChildOutcome::Kind::kSpawnFailed:
      break;  // an ERROR, decided before any check
  }
  return std::nullopt;
}

// A clean exit that came only because the mock server gave up at the case deadline: some
// step (typically close) waited on a server that was still there.
std::optional<CheckRecord> hung_step(const Scenario& scenario, const ChildOutcome& driver,
                                     const CaseObservations& observed) {
  const auto& steps = observed.driver_report.steps;
  if (driver.kind != ChildOutcome::Kind::kExited || driver.exit_code != 0 ||
      (steps.empty() && !observed.official_harness) || observed.transcript.end_reason != "deadline")
    return std::nullopt;
  const std::string late = steps.empty() ? "the harness exited only after that"
                                         : "step " + std::to_string(steps.back().step) + " (" +
                                               steps.back().op + ") returned only after that";
  return not_completed(scenario, observed,
                       "the client was still connected when the mock server gave up at the case "
                       "deadline; " +
                           late);
}

std::string driver_line_expected(const Scenario& scenario, const DriverCheck& driver_check) {
  const std::string op = scenario.driver_steps[driver_check.step].value("op", "");
  return "step " + std::to_string(driver_check.step) + " (" + op + ") reports " +
         driver_check.expect.dump();
}

CheckRecord driver_line(const Scenario& scenario, const DriverCheck& driver_check,
                        const CaseObservations& observed, const std::string& expected) {
  const auto& report = observed.driver_report;
  const std::string op = scenario.driver_steps[driver_check.step].value("op", "");
  if (driver_check.step >= report.steps.size()) {
    return observation(driver_check.check, Outcome::Broken, expected,
                       "the driver printed no line for step " + std::to_string(driver_check.step) +
                           " (" + op + ")");
  }
  const Json& line = report.steps[driver_check.step].line;
  const bool met = matches(driver_check.expect, line, Captures{});
  return observation(driver_check.check, met ? Outcome::Met : Outcome::Broken, expected,
                     safe_dump(line));
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

// Why a declared check cannot be judged in this session, before its record is read: its
// sentences do not apply at the session's revision, or its premise (`given`) never happened.
std::optional<std::pair<std::string, Cause>> unjudgeable(const CheckDef& check,
                                                         const CaseObservations& observed,
                                                         const SpecReferences& refs) {
  const auto& revision = observed.transcript.negotiated.value_or(observed.revision);
  if (auto why = not_applicable_at(check, revision, refs))
    return std::pair(std::move(*why), Cause::kRevision);
  for (const auto& label : check.given) {
    if (!observed.transcript.sent_labels.count(label))
      return std::pair("its premise never happened: " + check.premise +
                           " (it never did: " + why_not_reached(observed.transcript) + ")",
                       Cause::kPremise);
  }
  return std::nullopt;
}

// The script's checks, in script order; a check the mock server never recorded was not
// reached (the client died, hung or broke an earlier step), or, when the script stopped
// behind something the client MAY skip, is not judged.
void script_checks(const Scenario& scenario, const CaseObservations& observed,
                   const SpecReferences& refs, std::vector<bool>& used, Evaluation& out) {
  const auto& transcript = observed.transcript;
  for (const auto& def : scenario.script_checks) {
    if (!def.applies_to(observed.transport)) continue;
    const CheckRecord* record = nullptr;
    for (std::size_t i = 0; i < transcript.checks.size() && !record; ++i) {
      if (!used[i] && transcript.checks[i].check.id == def.id) {
        used[i] = true;
        record = &transcript.checks[i];
      }
    }
    if (auto why = unjudgeable(def, observed, refs)) {
      out.not_judged.push_back(
          not_judged(scenario.id, def, record ? record->expected : "", why->first, why->second));
    } else if (record && record->outcome == Outcome::NotJudged &&
               record->details.contains("overloaded_timers_ms")) {
      out.not_judged.push_back(
          not_judged(scenario.id, def, record->expected,
                     "this machine was overloaded (the mock server's timers " +
                         format_ms(record->details["overloaded_timers_ms"].get<double>()) +
                         " ms late): " + record->actual,
                     Cause::kOverload));
    } else if (record && record->outcome == Outcome::NotJudged) {
      out.not_judged.push_back(not_judged(
          scenario.id, def, record->expected,
          "its premise never happened: " + def.premise + ": " + record->actual, Cause::kPremise));
    } else if (record) {
      out.checks.push_back(judged(scenario.id, *record, refs, record->t));
    } else if (transcript.unsupported) {
      out.not_judged.push_back(not_judged(scenario.id, def, "",
                                          "not reached behind a skip: " + *transcript.unsupported,
                                          Cause::kSkip));
    } else {
      out.checks.push_back(judged(
          scenario.id,
          observation(def, Outcome::NotReached, "", "not reached: " + why_not_reached(transcript)),
          refs));
    }
  }
}

// Checks the server records on its own (a flooded line, an invalid message, HTTP rules).
// Each is recorded once, or again when a later request broke it worse (a degraded
// http:protocol-version, then a broken one): the worst stands.
void recorded_on_its_own(const Scenario& scenario, const TranscriptRecords& transcript,
                         const SpecReferences& refs, const std::vector<bool>& used,
                         Evaluation& out) {
  std::map<std::string, std::size_t> own;  // implicit check id -> index in out.checks
  for (std::size_t i = 0; i < transcript.checks.size(); ++i) {
    if (used[i] || transcript.checks[i].outcome == Outcome::NotJudged) continue;
    auto check = judged(scenario.id, transcript.checks[i], refs, transcript.checks[i].t);
    const auto seen = transcript.checks[i].implicit ? own.find(check.id) : own.end();
    if (seen == own.end()) {
      if (transcript.checks[i].implicit) own.emplace(check.id, out.checks.size());
      out.checks.push_back(std::move(check));
    } else if (worst(out.checks[seen->second].verdict, check.verdict) !=
               out.checks[seen->second].verdict) {
      out.checks[seen->second] = std::move(check);
    }
  }
}

void driver_checks(const Scenario& scenario, const CaseObservations& observed,
                   const SpecReferences& refs, Evaluation& out) {
  for (const auto& driver_check : scenario.driver_checks) {
    const auto expected = driver_line_expected(scenario, driver_check);
    if (!observed.driver) {
      out.not_judged.push_back(not_judged(scenario.id, driver_check.check, expected,
                                          std::string(kNoDriverInServe) + ": judge it by eye",
                                          Cause::kNoDriver));
    } else if (auto why = unjudgeable(driver_check.check, observed, refs)) {
      out.not_judged.push_back(
          not_judged(scenario.id, driver_check.check, expected, why->first, why->second));
    } else {
      out.checks.push_back(
          judged(scenario.id, driver_line(scenario, driver_check, observed, expected), refs));
    }
  }
}

void fate_checks(const Scenario& scenario, const CaseObservations& observed,
                 const SpecReferences& refs, Evaluation& out) {
  if (observed.driver) {
    for (auto fate : {driver_fate(scenario, *observed.driver, observed),
                      hung_step(scenario, *observed.driver, observed)}) {
      if (!fate) continue;
      // A call lost behind a skip the client was entitled to (a stream it did not resume)
      // hangs because of that skip: judging the hang would make the skip a MUST.
      if (fate->check.id == "driver:completed" && observed.transcript.unsupported) {
        out.not_judged.push_back(not_judged(
            scenario.id, fate->check, fate->expected,
            fate->actual + ", behind a skip: " + *observed.transcript.unsupported, Cause::kSkip));
      } else {
        out.checks.push_back(judged(scenario.id, *fate, refs));
      }
    }
  } else {
    for (const auto& record : {builtin_observation("driver:exit", Outcome::Broken, ""),
                               not_completed(scenario, observed, "")}) {
      out.not_judged.push_back(not_judged(scenario.id, record.check, record.expected,
                                          kNoDriverInServe, Cause::kNoDriver));
    }
  }
  if (!observed.transcript.present) {
    out.checks.push_back(
        judged(scenario.id,
               builtin_observation("transport:server-started", Outcome::Broken,
                                   "no transcript: the client never started the mock server"),
               refs));
  }
}

// The client did not reach the mock server within the start-up budget: that alone is said
// (driver:started), and nothing of the case's subject is judged (docs/verdicts.md, "Timeouts").
Evaluation never_started(const Scenario& scenario, const CaseObservations& observed,
                         const SpecReferences& refs) {
  Evaluation out;
  const auto budget_s = format_ms(*observed.transcript.startup_exceeded_ms / 1000.0);
  std::string actual = "the client did not start within " + budget_s +
                       " s: no line, byte or request reached the mock server";
  if (observed.driver)
    actual += "; the " + std::string(observed.official_harness ? "harness" : "driver") + " " +
              describe(*observed.driver);
  out.checks.push_back(
      judged(scenario.id, builtin_observation("driver:started", Outcome::Broken, actual), refs));
  const auto why = "its premise never happened: the client did not start within " + budget_s + " s";
  for (const auto& def : scenario.script_checks) {
    if (def.applies_to(observed.transport))
      out.not_judged.push_back(not_judged(scenario.id, def, "", why, Cause::kPremise));
  }
  for (const auto& driver_check : scenario.driver_checks) {
    out.not_judged.push_back(not_judged(scenario.id, driver_check.check,
                                        driver_line_expected(scenario, driver_check), why,
                                        Cause::kPremise));
  }
  out.verdict = Verdict::Fail;
  return out;
}

// No subject check judged: the case says nothing about the client, and says why.
void nothing_judged(Evaluation& out) {
  out.verdict = Verdict::Unsupported;
  const bool by_revision =
      !out.not_judged.empty() &&
      std::all_of(out.not_judged.begin(), out.not_judged.end(),
                  [](const NotJudgedCheck& c) { return c.cause == Cause::kRevision; });
  out.unsupported =
      by_revision ? CaseResult::Unsupported::kRevision : CaseResult::Unsupported::kClient;
  out.reason = "no check of the case's subject could be judged" +
               (out.not_judged.empty()
                    ? std::string()
                    : ": " + out.not_judged.front().short_id + ": " + out.not_judged.front().why);
}

}  // namespace

std::optional<Verdict> subject_verdict(const std::vector<CheckResult>& checks) {
  std::optional<Verdict> failing;
  bool passing = false, informational = false;
  for (const auto& check : checks) {
    if (check.kind == CheckKind::Collateral) continue;
    if (verdict_fails(check.verdict, true)) {  // NON_STRICT, FAIL or ERROR
      failing = worst(failing.value_or(check.verdict), check.verdict);
    } else if (check.verdict == Verdict::Pass) {
      // A driver that merely exited is no evidence about the subject.
      passing = passing || check.kind == CheckKind::Subject;
    } else if (check.verdict == Verdict::Informational) {
      informational = true;
    }
  }
  if (failing) return failing;
  if (passing) return Verdict::Pass;
  if (informational) return Verdict::Informational;
  return std::nullopt;
}

Evaluation evaluate_case(const Scenario& scenario, const CaseObservations& observed,
                         const SpecReferences& refs) {
  if (auto early = before_checks(scenario, observed)) return std::move(*early);
  if (observed.transcript.startup_exceeded_ms) return never_started(scenario, observed, refs);
  Evaluation out;
  const auto& transcript = observed.transcript;
  fate_checks(scenario, observed, refs, out);
  std::vector<bool> used(transcript.checks.size(), false);
  script_checks(scenario, observed, refs, used, out);
  recorded_on_its_own(scenario, transcript, refs, used, out);
  driver_checks(scenario, observed, refs, out);

  const auto verdict = subject_verdict(out.checks);
  if (!verdict) {
    nothing_judged(out);
    return out;
  }
  out.verdict = *verdict;
  // Where a reader should look first: the first subject check that is not PASS, else the
  // first collateral one.
  for (const bool collateral : {false, true}) {
    for (const auto& check : out.checks) {
      if (out.focus_ms) break;
      if ((check.kind == CheckKind::Collateral) == collateral && check.verdict != Verdict::Pass &&
          check.at_ms)
        out.focus_ms = check.at_ms;
    }
  }
  // The script stopped because the client skipped something the rest of the case needs and
  // that it MAY skip (an HTTP client that never opens the GET stream) or SHOULD not (a stream
  // it never resumes, recorded by its own SHOULD check): the case does not apply, unless what
  // the client did do fell short.
  if (transcript.unsupported &&
      (out.verdict == Verdict::Pass || out.verdict == Verdict::Informational)) {
    out.verdict = Verdict::Unsupported;
    out.unsupported = CaseResult::Unsupported::kClient;
    out.reason = *transcript.unsupported;
  }
  return out;
}

}  // namespace mcpping
