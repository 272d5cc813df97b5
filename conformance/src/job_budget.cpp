#include "conformance/job_budget.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace mcpping {

unsigned default_jobs(unsigned cores) { return std::max(4u, 4 * cores); }

unsigned jobs_for(const StartupCost& cost, unsigned cores, double startup_budget_s) {
  const unsigned most = default_jobs(cores);
  // Starts contend for CPU, not for wall time (a client waiting on the disk leaves the cores
  // to the others); wall time stands in only when no CPU time was measured.
  const double per_start = cost.cpu_s > 0 ? cost.cpu_s : cost.wall_s;
  if (per_start <= 0) return most;
  const double fits = std::floor(free_cores(cost, cores) * startup_budget_s / (4.0 * per_start));
  return static_cast<unsigned>(std::clamp(fits, 1.0, static_cast<double>(most)));
}

double free_cores(const StartupCost& cost, unsigned cores) {
  const double all = std::max(1u, cores);
  // /proc/stat counts in ticks (10 ms): one tick more over a start of a few milliseconds would
  // read as whole cores taken. A start that short leaves nothing to share anyway.
  if (cost.wall_s < kShortestMeasuredStartSeconds) return all;
  const double left = all - cost.others_cpu_s / cost.wall_s;
  return std::clamp(std::max(left, cost.cpu_s / cost.wall_s), 0.0, all);
}

double reaped_children_cpu_s() {
  rusage usage{};
  if (::getrusage(RUSAGE_CHILDREN, &usage) != 0) return 0;
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double machine_cpu_s() {
  // The first line adds up every core: "cpu user nice system idle iowait irq softirq steal".
  std::ifstream stat("/proc/stat");
  std::string label;
  double ticks[8] = {};
  if (!(stat >> label) || label != "cpu") return 0;
  for (double& t : ticks) stat >> t;
  if (!stat) return 0;
  const double busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7];
  return busy / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

std::string describe_jobs_choice(const StartupCost& cost, unsigned cores, unsigned jobs,
                                 const std::string& what) {
  char figures[128];
  std::snprintf(figures, sizeof figures, "%.2f CPU-s (%.2f s wall), %.1f of %u cores free",
                cost.cpu_s, cost.wall_s, free_cores(cost, cores), std::max(1u, cores));
  return what + " start-up: " + figures + ": " + std::to_string(jobs) +
         (jobs == 1 ? " case" : " cases") + " at once";
}

}  // namespace mcpping
