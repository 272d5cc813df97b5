// Turns what was observed in one case into checks and a verdict (docs/verdicts.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "conformance/child_process.hpp"
#include "conformance/driver_protocol.hpp"
#include "conformance/transcript_reader.hpp"
#include "engine/scenario.hpp"
#include "reports/results.hpp"

namespace mcpping {

struct CaseObservations {
  std::string transport;
  ChildOutcome driver;
  DriverReport driver_report;
  TranscriptRecords transcript;
};

struct Evaluation {
  Verdict verdict = Verdict::Pass;
  std::string reason;  // for UNSUPPORTED and ERROR
  std::vector<CheckResult> checks;
  std::optional<double> focus_ms;  // transcript time of the first notable outcome
};

Evaluation evaluate_case(const Scenario& scenario, const CaseObservations& observed,
                         const SpecReferences& refs);

// Spec keys to references; an unknown key yields a reference that says so.
std::vector<SpecReference> resolve_spec(const std::vector<std::string>& keys,
                                        const SpecReferences& refs);

}  // namespace mcpping
