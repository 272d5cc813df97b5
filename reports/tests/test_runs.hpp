// Small results models for the renderer tests.
#pragma once

#include "reports/results.hpp"

namespace mcpping::test {

inline CheckResult make_check(const std::string& id, Verdict verdict, Level level = Level::Must) {
  CheckResult check;
  check.id = id;
  check.short_id = id.substr(id.find(':') + 1);
  check.level = level;
  check.verdict = verdict;
  check.spec = {{"ping.respond-promptly", "https://spec.example/ping", "2025-11-25",
                 "The receiver MUST respond promptly with an empty response", Binds::Either}};
  check.expected = "pong within 2000 ms";
  check.actual = verdict == Verdict::Pass ? "pong after 0.2 ms" : "nothing within 2000 ms";
  return check;
}

// A collateral check (a finding of the run) failed in case `case_id`.
inline CheckResult make_finding(const std::string& case_id, const std::string& check_id,
                                const std::string& actual) {
  CheckResult check;
  check.id = case_id + ":" + check_id;
  check.short_id = check_id;
  check.verdict = Verdict::Fail;
  check.kind = CheckKind::Collateral;
  check.expected = "the rule is kept";
  check.actual = actual;
  return check;
}

inline CaseResult make_case(const std::string& id, std::vector<CheckResult> checks,
                            const std::string& transport = "stdio") {
  CaseResult result;
  result.case_id = id;
  result.transport = transport;
  result.title = "title of " + id;
  result.checks = std::move(checks);
  for (const auto& check : result.checks) {
    if (check.kind != CheckKind::Collateral) result.verdict = worst(result.verdict, check.verdict);
  }
  return result;
}

inline RunResult make_run(std::vector<CaseResult> cases, bool strict = false) {
  RunResult run;
  run.info.suite_version = "0.1.0";
  run.info.revision = "2025-11-25";
  run.info.strict = strict;
  run.info.pong_cap_ms = 2000;
  run.info.driver_argv = {"./driver", "--flag"};
  run.started_at = "2026-11-29T23:00:00Z";
  run.cases = std::move(cases);
  run.findings = collect_findings(run.cases);
  return run;
}

// Latencies as a run of the catalogue has them: single pongs, and a burst whose pongs queue
// behind each other. stdio: pongs of 0.2 and 0.4 ms, and a burst of 3 pongs (40, 45, 50 ms)
// whose last came 52.5 ms after the first ping; streamable-http: a pong of 1.5 ms, and a
// burst that lost one of its 3 pongs (60, 70 ms; the last at 80 ms).
inline RunResult latency_run() {
  const auto pong = [](const std::string& id, std::vector<double> latencies) {
    auto check = make_check(id, Verdict::Pass);
    check.latency_ms = std::move(latencies);
    return check;
  };
  auto burst = pong("ping/burst:pongs", {40, 45, 50});
  burst.burst = BurstFigures{3, 3, 52.5, 57.143};
  auto lossy = pong("ping/burst:pongs", {60, 70});
  lossy.burst = BurstFigures{3, 2, 80, 25};
  return make_run({make_case("ping/a", {pong("ping/a:pong", {0.2})}),
                   make_case("ping/b", {pong("ping/b:pong", {0.4})}),
                   make_case("ping/burst", {burst}),
                   make_case("ping/a", {pong("ping/a:pong", {1.5})}, "streamable-http"),
                   make_case("ping/burst", {lossy}, "streamable-http")});
}

}  // namespace mcpping::test
