#include "conformance/case_schedule.hpp"

#include <algorithm>

namespace mcpping {

CaseSchedule schedule_cases(const std::vector<PlannedCase>& cases, const TimeoutTable& timeouts,
                            unsigned jobs) {
  CaseSchedule schedule;
  std::vector<double> expected(cases.size(), 0);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].unsupported) expected[i] = cases[i].scenario->fixed_wait_ms(timeouts);
    if (!cases[i].unsupported && cases[i].scenario->exclusive) {
      schedule.exclusive.push_back(i);
    } else if (jobs > 1 && expected[i] >= kWaitingCaseMs) {  // 0 when UNSUPPORTED
      schedule.waiting.push_back(i);
    } else {
      schedule.busy.push_back(i);
    }
  }
  // Longest first: the run ends with short cases filling the slots, not with one long case
  // started last. UNSUPPORTED cases expect 0 and cost nothing, so they go last.
  for (auto* group : {&schedule.exclusive, &schedule.waiting, &schedule.busy}) {
    std::stable_sort(group->begin(), group->end(), [&](std::size_t a, std::size_t b) {
      const bool a_runs = !cases[a].unsupported, b_runs = !cases[b].unsupported;
      if (a_runs != b_runs) return a_runs;
      return expected[a] > expected[b];
    });
  }
  // A sleeping case costs a few milliseconds of CPU at its start and end; a bound still keeps a
  // catalogue of hundreds of idle cases from spawning hundreds of processes at once.
  schedule.waiting_slots = std::min<std::size_t>(schedule.waiting.size(), 4 * std::size_t{jobs});
  return schedule;
}

}  // namespace mcpping
