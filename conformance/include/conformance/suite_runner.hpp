// Runs a planned set of cases in parallel, printing progress as cases finish.
#pragma once

#include <ostream>
#include <stdexcept>
#include <vector>

#include "conformance/case_plan.hpp"
#include "conformance/case_runner.hpp"
#include "conformance/child_process.hpp"
#include "reports/results.hpp"

namespace mcpping {

// The suite cannot run at all (exit status 2): a driver that fails the pre-check, a missing
// executable.
class SuiteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// DRIVER-CONTRACT.md: given the op "__unsupported__", a driver must exit 127. One that
// pretends to support everything is caught here. Throws SuiteError; returns how the driver
// ran (its wall time is a measure of its start-up).
ChildOutcome precheck_driver(const SuiteSetup& setup, const std::string& transport);

struct SuiteOptions {
  unsigned jobs = 1;
  // --jobs was not given: `jobs` is the most, and the run measures the client's start-up
  // first (the pre-check, or a harness's first case alone) to choose (job_budget.hpp).
  bool adapt_jobs = false;
  bool precheck = false;  // run precheck_driver (beside the first cases unless adapting)
};

// Throws the pre-check's SuiteError when it fails; the cases run so far are then dropped.
RunResult run_suite(const std::vector<PlannedCase>& cases, const SuiteSetup& setup,
                    const SuiteOptions& options, std::ostream& out);

}  // namespace mcpping
