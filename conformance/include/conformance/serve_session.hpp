// `mcp-ping-conformance serve`: one case's mock server for a client driven by hand (an IDE, a
// chat app, a CLI), judged by the same judge as `run` once its script ends.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "conformance/case_runner.hpp"
#include "conformance/cli.hpp"
#include "conformance/evaluation.hpp"
#include "core/scenario.hpp"
#include "reports/results.hpp"

namespace mcpping {

// The one case `options` names (an exact id, or a glob matching exactly one case) and runs on
// `options.transport`. Throws UsageError naming the close matches, the several matches, or
// the fixture's reason for not running on that transport.
const Scenario& pick_served_case(const std::vector<Scenario>& catalogue,
                                 const ServeOptions& options);

// A resolved script paced for a person. The case deadline and the start-up budget become
// `wait_ms`, and so does `expect_ms` where a step waits by default: the wait for the next
// request the case asks the client to make, which a person takes longer to make than a driver.
// Every bound a fixture names (pong caps, windows, an `expect_ms` a step names for the client's own
// reaction) stays as catalogued: those are what is judged.
Json human_paced_script(Json script, long wait_ms);

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
// 0 nothing failed; 1 the case or one of its findings failed; 3 ERROR (the suite's own).
int served_exit_status(const CaseResult& result);

// The whole session: the case run_case() runs with a person at the client, who is told what
// to give it and what it should do; the wait ends with the script or a SIGINT/SIGTERM/SIGHUP.
// Prints the checks and returns the exit status. `setup` gives the catalogue's defaults and
// references and the mock server; the rest comes from `options`.
int serve(const ServeOptions& options, const std::vector<Scenario>& catalogue, SuiteSetup setup,
          std::ostream& out);

}  // namespace mcpping
