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
  // nullopt when no driver ran (`serve`: a person drove the client): the driver-side checks
  // then have nothing to judge.
  std::optional<ChildOutcome> driver = ChildOutcome{};
  DriverReport driver_report;
  TranscriptRecords transcript;
  // The client is an official-suite harness (official_harness.hpp), not a driver: it prints
  // no step lines and knows no exit 127, and its exit status says whether it completed.
  bool official_harness = false;
};

// A check the case declares that nothing observed can judge: a driver-side check when no
// driver ran. Listed apart from the judged checks; it takes no part in the verdict.
struct UnjudgedCheck {
  std::string id;  // full id: "<case id>:<short id>"
  Level level = Level::Must;
  std::string expected;
};

struct Evaluation {
  Verdict verdict = Verdict::Pass;
  std::string reason;  // for UNSUPPORTED and ERROR
  CaseResult::Unsupported unsupported = CaseResult::Unsupported::kNo;
  std::vector<CheckResult> checks;
  std::optional<double> focus_ms;         // transcript time of the first notable outcome
  std::vector<UnjudgedCheck> not_judged;  // the driver-side checks, when no driver ran
};

Evaluation evaluate_case(const Scenario& scenario, const CaseObservations& observed,
                         const SpecReferences& refs);

}  // namespace mcpping
