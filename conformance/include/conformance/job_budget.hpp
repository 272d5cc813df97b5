// How many cases run at once when --jobs is not given: as many as the cores can start inside
// the start-up budget, measured on the client itself (docs/design-decisions.md, "Parallelism").
#pragma once

#include <chrono>
#include <string>

namespace mcpping {

// What one start of the client costs: wall time and CPU time (the process and the children it
// waited for), from the pre-check or from a first case run alone.
struct StartupCost {
  double wall_s = 0;
  double cpu_s = 0;
};

// The default for a machine: four cases per core (a case keeps a core busy for about a third
// of its run), at least four.
unsigned default_jobs(unsigned cores);

// At most default_jobs(cores), and no more than the cores can start within a quarter of the
// start-up budget: J starts of C CPU-seconds each take J * C / cores seconds on a busy
// machine, and the margin of four leaves room for other load beside the run. At least one.
unsigned jobs_for(const StartupCost& cost, unsigned cores, double startup_budget_s);

// The CPU time (user + system) of every child process this process has reaped so far, in
// seconds (getrusage RUSAGE_CHILDREN): the difference around a child's run is its cost when
// nothing else ran beside it.
double reaped_children_cpu_s();

// "driver start-up: 0.75 CPU-s (0.81 s wall): 8 cases at once".
std::string describe_jobs_choice(const StartupCost& cost, unsigned jobs, const std::string& what);

}  // namespace mcpping
