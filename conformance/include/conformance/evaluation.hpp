// Turns what was observed in one case into checks and a verdict (docs/verdicts.md). Every
// verdict goes through judge().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "conformance/child_process.hpp"
#include "conformance/driver_protocol.hpp"
#include "core/scenario.hpp"
#include "core/transcript_model.hpp"
#include "reports/results.hpp"

namespace mcpping {

struct CaseObservations {
  std::string transport;
  // The run's --revision: the session's revision when the transcript names none negotiated.
  std::string revision = default_revision();
  // nullopt when no driver ran (`serve`: a person drove the client): the driver-side checks
  // then have nothing to judge.
  std::optional<ChildOutcome> driver = ChildOutcome{};
  DriverReport driver_report;
  TranscriptRecords transcript;
  // The client is an official-suite harness (official_harness.hpp), not a driver: it prints
  // no step lines and knows no exit 127, and its exit status says whether it completed.
  bool official_harness = false;
};

// Why the driver-side checks of a served case are not judged.
inline constexpr const char* kNoDriverInServe = "no driver in serve mode";

struct Evaluation {
  Verdict verdict = Verdict::Pass;
  std::string reason;  // for UNSUPPORTED and ERROR
  CaseResult::Unsupported unsupported = CaseResult::Unsupported::kNo;
  std::vector<CheckResult> checks;
  std::optional<double> focus_ms;  // transcript time of the first notable outcome
  // The checks nothing observed can judge (CaseResult::not_judged): no part of the verdict.
  std::vector<NotJudgedCheck> not_judged;
};

// The case's verdict from its judged checks (docs/verdicts.md, "Subject, fate and findings"):
// the worst NON_STRICT, FAIL or ERROR of its subject and fate checks; else PASS when a
// subject check passed, INFORMATIONAL when its subject was only recorded; nullopt when no
// subject check was judged at all. Collateral checks take no part.
std::optional<Verdict> subject_verdict(const std::vector<CheckResult>& checks);

Evaluation evaluate_case(const Scenario& scenario, const CaseObservations& observed,
                         const SpecReferences& refs);

}  // namespace mcpping
