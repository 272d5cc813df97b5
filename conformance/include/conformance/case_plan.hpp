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

// Which scenarios a run or a listing takes.
struct CatalogueSelection {
  std::vector<std::string> globs;        // case ids to keep (as `run --scenario`); empty: all
  std::optional<std::string> transport;  // keep the cases that run on it; empty: all
};

// The scenarios the selection keeps, in catalogue order. Throws std::invalid_argument naming
// the close matches when a glob matches no case (a typo must not silently run nothing).
std::vector<const Scenario*> select_scenarios(const std::vector<Scenario>& scenarios,
                                              const CatalogueSelection& selection);

// Cases in catalogue order, then transport order; throws as select_scenarios() does.
std::vector<PlannedCase> plan_cases(const std::vector<Scenario>& catalogue,
                                    const PlanRequest& request);

// The I-th of N parts (1-based) of the planned cases: every N-th case starting at I, in plan
// order, so the parts are disjoint, together complete, and the same on every machine.
std::vector<PlannedCase> shard_of(const std::vector<PlannedCase>& cases, unsigned index,
                                  unsigned total);

// Shell-style match on case ids: '*' and '?' also match '/', so "ping/*" covers "ping/id/zero".
bool glob_matches(const std::string& pattern, const std::string& id);
// Whether any of `globs` matches `id`.
bool matches_any(const std::vector<std::string>& globs, const std::string& id);

}  // namespace mcpping
