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

inline CaseResult make_case(const std::string& id, std::vector<CheckResult> checks,
                            const std::string& transport = "stdio") {
  CaseResult result;
  result.case_id = id;
  result.transport = transport;
  result.title = "title of " + id;
  result.checks = std::move(checks);
  for (const auto& check : result.checks) result.verdict = worst(result.verdict, check.verdict);
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
  return run;
}

}  // namespace mcpping::test
