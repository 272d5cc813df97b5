// Runs one case, for `run` and for `serve` alike: prepares its evidence folder, starts the
// mock server, has the client play the case, stops the mock server, reads the evidence,
// judges, and writes verdict.json. Who drives the client is a CaseClient.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conformance/case_plan.hpp"
#include "conformance/child_process.hpp"
#include "conformance/mock_watch.hpp"
#include "conformance/schema_validation.hpp"
#include "core/scenario.hpp"
#include "reports/results.hpp"

namespace mcpping {

struct SuiteSetup {
  Defaults defaults;
  SpecReferences refs;
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

struct CaseObservations;

// What a case knows before its client plays it.
struct CaseContext {
  const PlannedCase& planned;
  const SuiteSetup& setup;
  std::filesystem::path dir;  // the evidence folder
  TimeoutTable timeouts;      // scaled by the timeout multiplier
  std::chrono::milliseconds grace;
  Json steps;  // the driver's steps, resolved
};

// How the client's play ended: how its driver ended (none: a person drove it), and how a mock
// server the client started (stdio) is stopped after it.
struct ClientEnd {
  std::optional<ChildOutcome> driver;
  MockStop stop = MockStop::kAfterGrace;
};

// Who drives a case's client, the one thing in which run_case()'s callers differ: a driver
// process, a driver session's process, or a person (serve).
class CaseClient {
 public:
  virtual ~CaseClient() = default;
  // The script the mock server runs (script.json), from the resolved one.
  virtual Json script(const CaseContext& c, Json resolved) const = 0;
  // Has the client play the case against the running mock server, which `server` locates:
  // {"url": ...} over HTTP, {"command": argv} over stdio (the client starts it).
  virtual ClientEnd play(const CaseContext& c, const Json& server) = 0;
  // Adds what the client reported (a driver's step lines) to `observed`, which holds the
  // transcript by now.
  virtual void observe(const CaseContext& c, CaseObservations& observed) = 0;
  // Adds the fields verdict.json has beside the result's (none by default).
  virtual void annotate(Json&) const {}
};

// Runs the case with `client` driving its client. A case that does not apply is UNSUPPORTED
// without an evidence folder; the suite's own trouble is an ERROR.
CaseResult run_case(const PlannedCase& planned, const SuiteSetup& setup, CaseClient& client);

class DriverSession;

// Runs the case in its own driver process, or as the next case of `session` when given.
CaseResult run_case(const PlannedCase& planned, const SuiteSetup& setup,
                    DriverSession* session = nullptr);

}  // namespace mcpping
