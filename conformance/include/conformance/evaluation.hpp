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
  ChildOutcome driver;
  DriverReport driver_report;
  TranscriptRecords transcript;
  // The client is an official-suite harness (official_harness.hpp), not a driver: it prints
  // no step lines and knows no exit 127, and its exit status says whether it completed.
  bool official_harness = false;
};

struct Evaluation {
  Verdict verdict = Verdict::Pass;
  std::string reason;  // for UNSUPPORTED and ERROR
  CaseResult::Unsupported unsupported = CaseResult::Unsupported::kNo;
  std::vector<CheckResult> checks;
  std::optional<double> focus_ms;  // transcript time of the first notable outcome
};

Evaluation evaluate_case(const Scenario& scenario, const CaseObservations& observed,
                         const SpecReferences& refs);

}  // namespace mcpping
