// In which order, and beside what, the planned cases of a run are started.
#pragma once

#include <cstddef>
#include <vector>

#include "conformance/case_plan.hpp"
#include "core/scenario.hpp"

namespace mcpping {

// A case whose script waits out at least this long in fixed windows (idle windows, pauses)
// spends its time asleep: it does not take a job slot.
inline constexpr double kWaitingCaseMs = 1000;

// Three groups of indices into the planned cases, each longest expected first (then in plan
// order, so a schedule is the same on every machine).
struct CaseSchedule {
  // Scenario::exclusive cases: one at a time, while no busy case runs.
  std::vector<std::size_t> exclusive;
  // Cases that mostly wait: started at once, beside everything else, at most
  // `waiting_slots` at a time.
  std::vector<std::size_t> waiting;
  std::size_t waiting_slots = 0;
  // The rest (UNSUPPORTED ones, which cost nothing, last): in `jobs` slots.
  std::vector<std::size_t> busy;
};

// With jobs == 1 every case runs on its own, one after the other (nothing is `waiting`).
CaseSchedule schedule_cases(const std::vector<PlannedCase>& cases, const TimeoutTable& timeouts,
                            unsigned jobs);

}  // namespace mcpping
