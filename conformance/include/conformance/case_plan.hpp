// Which cases a run consists of: scenarios × transports, filtered, with their applicability.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/scenario.hpp"
#include "reports/results.hpp"

namespace mcpping {

struct PlannedCase {
  const Scenario* scenario = nullptr;
  std::string transport;
  std::optional<std::string> unsupported;  // why the case cannot apply to this run
  CaseResult::Unsupported unsupported_kind = CaseResult::Unsupported::kRevision;
};

struct PlanRequest {
  std::vector<std::string> globs;        // empty: every scenario
  std::optional<std::string> transport;  // empty: every transport the suite hosts
  std::string revision = default_revision();
  std::vector<std::string> hosted_transports;  // those the suite has a mock server for
};

// Cases in catalogue order, then transport order. Throws std::invalid_argument when a glob
// matches no scenario (a typo must not silently run nothing).
std::vector<PlannedCase> plan_cases(const std::vector<Scenario>& catalogue,
                                    const PlanRequest& request);

// The I-th of N parts (1-based) of the planned cases: every N-th case starting at I, in plan
// order, so the parts are disjoint, together complete, and the same on every machine.
std::vector<PlannedCase> shard_of(const std::vector<PlannedCase>& cases, unsigned index,
                                  unsigned total);

// Shell-style match on case ids: '*' and '?' also match '/', so "ping/*" covers "ping/id/zero".
bool glob_matches(const std::string& pattern, const std::string& id);

}  // namespace mcpping
