// Runs one case: prepares its evidence folder, starts the driver against the mock server,
// waits within the case deadline, cleans up, and evaluates.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "conformance/case_plan.hpp"
#include "conformance/schema_validation.hpp"
#include "core/scenario.hpp"
#include "reports/results.hpp"

namespace mcpping {

struct SuiteSetup {
  Defaults defaults;
  SpecReferences refs;
  std::vector<Scenario> catalogue;
  std::filesystem::path mock_stdio_server;
  std::filesystem::path mock_http_server;
  std::vector<std::string> driver_argv;  // or the official harness's argv
  // driver_argv is an official-suite client harness (official_harness.hpp), and the planned
  // cases are those adapted to it.
  bool official_harness = false;
  std::string revision = default_revision();
  double timeout_multiplier = 1.0;
  std::filesystem::path report_dir;
  // The specification's schemas (--schemas): every client message is validated against the
  // session's revision (wire:schema-valid). None: schema validation is off.
  std::shared_ptr<const SchemaSet> schemas;
  // Ask the driver, at its pre-check, whether it runs cases in sessions (driver contract
  // v1.3); off with --no-driver-sessions and for a harness.
  bool driver_sessions = false;
};

// The folder of a case's evidence: <report dir>/cases/<transport>/<case id>.
std::filesystem::path evidence_dir_for(const std::filesystem::path& report_dir,
                                       const std::string& transport, const std::string& case_id);

class BackgroundProcess;

// The URL the HTTP mock server prints as its first stdout line, {"url":"http://..."}. Throws
// std::runtime_error quoting what it printed instead (and its stderr) when it does not.
std::string read_server_url(BackgroundProcess& server, std::chrono::milliseconds timeout,
                            const std::filesystem::path& stderr_file);

class DriverSession;

// Runs the case in its own driver process, or as the next case of `session` when given.
CaseResult run_case(const PlannedCase& planned, const SuiteSetup& setup,
                    DriverSession* session = nullptr);

// A case's result before it runs: what it is (id, transport, title, description, catches).
CaseResult case_result_for(const Scenario& scenario, const std::string& transport);

// The mock server's command line: `server` on `script_file`, its evidence in `dir`.
std::vector<std::string> mock_server_argv(const std::filesystem::path& server,
                                          const std::filesystem::path& script_file,
                                          const std::filesystem::path& dir);

struct CaseObservations;

// Judges what was observed of the case into `result`: its verdict and checks, and a
// transcript excerpt when it did not pass.
void judge_case(CaseResult& result, const Scenario& scenario, const CaseObservations& observed,
                const SpecReferences& refs);

}  // namespace mcpping
