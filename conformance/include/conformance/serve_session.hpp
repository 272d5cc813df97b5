// `mcp-ping-conformance serve`: one case's mock server for a client driven by hand (an IDE, a
// chat app, a CLI), judged by the same judge as `run` once its script ends.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "conformance/cli.hpp"
#include "conformance/evaluation.hpp"
#include "core/scenario.hpp"
#include "reports/results.hpp"

namespace mcpping {

struct ServeSetup {
  Defaults defaults;
  SpecReferences refs;
  std::filesystem::path mock_stdio_server;
  std::filesystem::path mock_http_server;
};

// The one case `options` names (an exact id, or a glob matching exactly one case) and runs on
// `options.transport`. Throws UsageError naming the close matches, the several matches, or
// the fixture's reason for not running on that transport.
const Scenario& pick_served_case(const std::vector<Scenario>& catalogue,
                                 const ServeOptions& options);

// resolve_script() paced for a person. The case deadline becomes `wait_ms`, and so does
// `expect_ms` where a step waits by default: the wait for the next request the case asks the
// client to make, which a person takes longer to make than a driver. Every bound a fixture
// names (pong caps, windows, an `expect_ms` a step names for the client's own reaction) stays
// as catalogued: those are what is judged.
Json human_paced_script(const Scenario& scenario, const Defaults& defaults,
                        const ServeOptions& options);

// What the client should do for one resolved driver step, in words ("call the tool \"echo\"
// with {...}").
std::string client_step_text(const Json& step, const std::string& transport);

// How to configure a client to start the stdio mock server: the shell-quoted command line, the
// argv as a JSON array, and an "mcpServers" entry.
std::string stdio_server_text(const std::vector<std::string>& argv);

// The checks after the script ended: one line per judged check, the checks not judged and
// why (the driver-side ones: no driver in serve mode), the evidence `run` prints for a case
// that did not pass, the case's findings, and a one-line verdict.
std::string served_case_report(const CaseResult& result);

// The exit status of a served case as `run` has it for a run of that one case (lenient):
// 0 nothing failed; 1 the case or one of its findings failed; 2 ERROR (the suite's own).
int served_exit_status(const CaseResult& result);

// The whole session: prepares the evidence folder, starts the HTTP mock server (stdio: the
// client starts it), prints what to give the client and what it should do, waits until the
// script ends or a SIGINT/SIGTERM/SIGHUP, stops the mock server, judges, writes verdict.json
// and prints the checks. Returns the exit status.
int serve(const ServeOptions& options, const std::vector<Scenario>& catalogue,
          const ServeSetup& setup, std::ostream& out);

}  // namespace mcpping
