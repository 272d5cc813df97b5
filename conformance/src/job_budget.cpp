#include "conformance/job_budget.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mcpping {

unsigned default_jobs(unsigned cores) { return std::max(4u, 4 * cores); }

unsigned jobs_for(const StartupCost& cost, unsigned cores, double startup_budget_s) {
  const unsigned most = default_jobs(cores);
  // Starts contend for CPU, not for wall time (a client waiting on the disk leaves the cores
  // to the others); wall time stands in only when no CPU time was measured.
  const double per_start = cost.cpu_s > 0 ? cost.cpu_s : cost.wall_s;
  if (per_start <= 0) return most;
  const double fits =
      std::floor(static_cast<double>(std::max(1u, cores)) * startup_budget_s / (4.0 * per_start));
  return static_cast<unsigned>(std::clamp(fits, 1.0, static_cast<double>(most)));
}

double reaped_children_cpu_s() {
  rusage usage{};
  if (::getrusage(RUSAGE_CHILDREN, &usage) != 0) return 0;
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string describe_jobs_choice(const StartupCost& cost, unsigned jobs, const std::string& what) {
  char figures[96];
  std::snprintf(figures, sizeof figures, "%.2f CPU-s (%.2f s wall)", cost.cpu_s, cost.wall_s);
  return what + " start-up: " + figures + ": " + std::to_string(jobs) +
         (jobs == 1 ? " case" : " cases") + " at once";
}

}  // namespace mcpping
