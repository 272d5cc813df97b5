#include "conformance/evaluation.hpp"

#include <algorithm>

#include "engine/pattern.hpp"

namespace mcpping {

using nlohmann::json;

std::vector<SpecReference> resolve_spec(const std::vector<std::string>& keys,
                                        const SpecReferences& refs) {
  std::vector<SpecReference> out;
  for (const auto& key : keys) {
    const auto it = refs.find(key);
    out.push_back(it != refs.end() ? it->second
                                   : SpecReference{key, "", "", "(unknown spec reference)"});
  }
  return out;
}

namespace {

CheckResult make_check(const std::string& case_id, const std::string& short_id, Level level,
                       Verdict verdict, const std::vector<std::string>& spec_keys,
                       const SpecReferences& refs, std::string expected, std::string actual) {
  CheckResult check;
  check.id = case_id + ":" + short_id;
  check.short_id = short_id;
  check.level = level;
  check.verdict = verdict;
  check.spec = resolve_spec(spec_keys, refs);
  check.expected = std::move(expected);
  check.actual = std::move(actual);
  return check;
}

std::vector<std::string> string_list(const json& value) {
  std::vector<std::string> out;
  if (value.is_array()) {
    for (const auto& item : value) {
      if (item.is_string()) out.push_back(item.get<std::string>());
    }
  }
  return out;
}

CheckResult from_record(const std::string& case_id, const json& record,
                        const SpecReferences& refs) {
  const auto level = parse_level(record.value("level", "MUST")).value_or(Level::Must);
  const auto verdict = parse_verdict(record.value("verdict", "FAIL")).value_or(Verdict::Fail);
  CheckResult check = make_check(case_id, record.value("check", "?"), level, verdict,
                                 string_list(record.value("spec", json::array())), refs,
                                 record.value("expected", ""), record.value("actual", ""));
  if (record.contains("latency_ms") && record["latency_ms"].is_array()) {
    for (const auto& ms : record["latency_ms"]) {
      if (ms.is_number()) check.latency_ms.push_back(ms.get<double>());
    }
  }
  if (record.contains("t") && record["t"].is_number()) check.at_ms = record["t"].get<double>();
  return check;
}

// Why the script stopped early, from the last "event" the mock server recorded.
std::string why_not_reached(const TranscriptRecords& transcript) {
  if (!transcript.present) return "the client never started the server";
  for (auto it = transcript.records.rbegin(); it != transcript.records.rend(); ++it) {
    if (it->value("kind", "") == "event") return it->value("what", "");
  }
  return transcript.ended ? "the script ended first" : "the server was stopped";
}

// The driver's own fate: crash, hang, or a clean exit.
void judge_driver_exit(const Scenario& scenario, const CaseObservations& observed,
                       const SpecReferences& refs, Evaluation& out) {
  const std::vector<std::string> spec = {"suite.client-survives"};
  const auto& driver = observed.driver;
  switch (driver.kind) {
    case ChildOutcome::Kind::kExited:
      out.checks.push_back(
          make_check(scenario.id, "driver:exit", Level::Must,
                     driver.exit_code == 0 ? Verdict::Pass : Verdict::Fail, spec, refs,
                     "the driver exits 0 after attempting every step",
                     driver.exit_code == 0 ? "exit 0" : "the client crashed: " + describe(driver)));
      break;
    case ChildOutcome::Kind::kSignaled:
      out.checks.push_back(make_check(scenario.id, "driver:exit", Level::Must, Verdict::Fail, spec,
                                      refs, "the driver exits 0 after attempting every step",
                                      "the client crashed: " + describe(driver)));
      break;
    case ChildOutcome::Kind::kTimedOut: {
      const bool informational = scenario.deadline_kill == Level::Info;
      out.checks.push_back(
          make_check(scenario.id, "driver:completed", informational ? Level::Info : Level::Must,
                     informational ? Verdict::Informational : Verdict::Fail, spec, refs,
                     "the driver finishes its steps before the case deadline",
                     "the client hung: " + describe(driver)));
      break;
    }
    case ChildOutcome::Kind::kSpawnFailed:
      break;  // handled by the caller as an ERROR
  }
}

void judge_driver_checks(const Scenario& scenario, const CaseObservations& observed,
                         const SpecReferences& refs, Evaluation& out) {
  for (const auto& driver_check : scenario.driver_checks) {
    const auto& def = driver_check.check;
    const std::string op = scenario.driver_steps[driver_check.step].value("op", "");
    const std::string expected = "step " + std::to_string(driver_check.step) + " (" + op +
                                 ") reports " + driver_check.expect.dump();
    const auto& lines = observed.driver_report.steps;
    if (driver_check.step >= lines.size()) {
      out.checks.push_back(make_check(scenario.id, def.id, def.level, failure_verdict(def.level),
                                      def.spec, refs, expected,
                                      "the driver printed no line for step " +
                                          std::to_string(driver_check.step) + " (" + op + ")"));
      continue;
    }
    const json& line = lines[driver_check.step].line;
    const bool met = matches(driver_check.expect, line, Captures{});
    out.checks.push_back(make_check(
        scenario.id, def.id, def.level, met ? Verdict::Pass : failure_verdict(def.level), def.spec,
        refs, expected, line.dump(-1, ' ', false, json::error_handler_t::replace)));
  }
}

}  // namespace

Evaluation evaluate_case(const Scenario& scenario, const CaseObservations& observed,
                         const SpecReferences& refs) {
  Evaluation out;
  const auto& driver = observed.driver;
  if (driver.kind == ChildOutcome::Kind::kSpawnFailed) {
    out.verdict = Verdict::Error;
    out.reason = "the driver " + describe(driver);
    return out;
  }
  if (driver.kind == ChildOutcome::Kind::kExited && driver.exit_code == kDriverUnsupportedExit) {
    out.verdict = Verdict::Unsupported;
    out.reason = "the driver exited 127: it does not support the transport '" + observed.transport +
                 "' or an op of this case";
    return out;
  }
  if (observed.transcript.fatal) {
    out.verdict = Verdict::Error;
    out.reason = "the mock server failed: " + *observed.transcript.fatal;
    return out;
  }
  if (observed.driver_report.problem) {
    out.verdict = Verdict::Error;
    out.reason = "the driver broke the driver contract: " + *observed.driver_report.problem;
    return out;
  }
  const bool exited_cleanly = driver.kind == ChildOutcome::Kind::kExited && driver.exit_code == 0;
  if (exited_cleanly && observed.driver_report.steps.size() < scenario.driver_steps.size()) {
    out.verdict = Verdict::Error;
    out.reason = "the driver broke the driver contract: it exited 0 after reporting " +
                 std::to_string(observed.driver_report.steps.size()) + " of " +
                 std::to_string(scenario.driver_steps.size()) + " steps";
    return out;
  }

  judge_driver_exit(scenario, observed, refs, out);
  if (!observed.transcript.present) {
    out.checks.push_back(make_check(scenario.id, "transport:server-started", Level::Must,
                                    Verdict::Fail, {"suite.client-starts-server"}, refs,
                                    "the client starts the server it was given",
                                    "no transcript: the client never started the mock server"));
  }

  // The script's checks, in script order; those the script never reached count against the
  // client (it died, hung or broke an earlier step).
  std::vector<bool> used(observed.transcript.checks.size(), false);
  for (const auto& def : scenario.script_checks) {
    if (!def.applies_to(observed.transport)) continue;
    std::optional<std::size_t> found;
    for (std::size_t i = 0; i < observed.transcript.checks.size(); ++i) {
      if (!used[i] && observed.transcript.checks[i].value("check", "") == def.id) {
        found = i;
        break;
      }
    }
    if (found) {
      used[*found] = true;
      out.checks.push_back(from_record(scenario.id, observed.transcript.checks[*found], refs));
    } else {
      out.checks.push_back(
          make_check(scenario.id, def.id, def.level,
                     def.level == Level::Info ? Verdict::Informational : failure_verdict(def.level),
                     def.spec, refs, "", "not reached: " + why_not_reached(observed.transcript)));
    }
  }
  // Checks the server records on its own (a flooded line, an invalid message).
  for (std::size_t i = 0; i < observed.transcript.checks.size(); ++i) {
    if (!used[i])
      out.checks.push_back(from_record(scenario.id, observed.transcript.checks[i], refs));
  }
  judge_driver_checks(scenario, observed, refs, out);

  for (const auto& check : out.checks) {
    out.verdict = worst(out.verdict, check.verdict);
    if (!out.focus_ms && check.verdict != Verdict::Pass && check.at_ms) out.focus_ms = check.at_ms;
  }
  // The script stopped because the client lacks something it MAY lack (an HTTP client that
  // never opens the GET stream): the case does not apply, unless what the client did do
  // already failed. Checks the script never reached do not count.
  if (observed.transcript.unsupported) {
    Verdict observed_worst = Verdict::Pass;
    for (const auto& check : out.checks) {
      if (check.actual.rfind("not reached:", 0) != 0) {
        observed_worst = worst(observed_worst, check.verdict);
      }
    }
    if (observed_worst == Verdict::Pass || observed_worst == Verdict::Informational) {
      out.verdict = Verdict::Unsupported;
      out.reason = *observed.transcript.unsupported;
    }
  }
  return out;
}

}  // namespace mcpping
