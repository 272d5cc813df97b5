// How many cases run at once when --jobs is not given: as many as the cores can start inside
// the start-up budget, measured on the client itself (docs/design-decisions.md, "Parallelism").
#pragma once

#include <string>

namespace mcpping {

// What one start of the client costs: wall time and CPU time (the process and the children it
// waited for), from the pre-check or from a first case run alone; and the CPU time the rest of
// the machine used meanwhile, which tells how many cores were left to the client.
struct StartupCost {
  double wall_s = 0;
  double cpu_s = 0;
  double others_cpu_s = 0;
};

// The default for a machine: four cases per core (a case keeps a core busy for about a third
// of its run), at least four.
unsigned default_jobs(unsigned cores);

// At most default_jobs(cores), and no more than the free cores can start within a quarter of
// the start-up budget: J starts of C CPU-seconds each take J * C / free seconds, and the margin
// of four leaves room for load that comes later. At least one.
unsigned jobs_for(const StartupCost& cost, unsigned cores, double startup_budget_s);

// The cores left to the client during its measured start: those the rest of the machine did
// not use, or as many as the client itself got if that is more (other load of a lower
// priority yields to it), at most `cores`; all of them for a start under
// kShortestMeasuredStartSeconds, too short for the machine's CPU time to tell.
double free_cores(const StartupCost& cost, unsigned cores);
inline constexpr double kShortestMeasuredStartSeconds = 0.5;

// The CPU time (user + system) of every child process this process has reaped so far, in
// seconds (getrusage RUSAGE_CHILDREN): the difference around a child's run is its cost when
// nothing else ran beside it.
double reaped_children_cpu_s();

// The CPU time (user + system, every process) the whole machine has used since boot, in
// seconds (/proc/stat), or 0 where it cannot be read.
double machine_cpu_s();

// "driver start-up: 0.75 CPU-s (0.81 s wall), 2.0 of 2 cores free: 8 cases at once".
std::string describe_jobs_choice(const StartupCost& cost, unsigned cores, unsigned jobs,
                                 const std::string& what);

}  // namespace mcpping
