// Driver sessions (driver contract v1.3, docs/driver-contract.md): one driver process runs
// case after case, each read from its stdin, so that a client runtime starts once per job
// slot instead of once per case. A case is judged exactly as if its driver had been a process
// of its own: its stdout and stderr are its own files, and a session process that crashes,
// hangs or breaks the protocol is replaced before the next case.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "conformance/child_process.hpp"
#include "conformance/driver_protocol.hpp"

namespace mcpping {

// The variable that asks a driver for a session, and the line that says it can hold one (its
// first on stdout).
inline constexpr const char* kSessionVariable = "MCP_CONFORMANCE_SESSION";
inline constexpr std::string_view kSessionHello = R"({"driver_sessions":1})";

// True when `stdout_text` (a pre-check's, run with MCP_CONFORMANCE_SESSION=1) begins with the
// hello line: the driver runs cases in sessions.
bool offers_sessions(const std::string& stdout_text);

class DriverSession {
 public:
  // `log_dir` receives what the driver writes on stderr between cases (nothing, normally).
  DriverSession(std::vector<std::string> driver_argv, std::filesystem::path log_dir);
  ~DriverSession();
  DriverSession(const DriverSession&) = delete;
  DriverSession& operator=(const DriverSession&) = delete;

  // Runs one case (`invocation` as make_invocation() builds it) in the session's process,
  // starting one first when none runs. `spec` gives the files, the deadline and its
  // extensions as for run_child(); its argv and environment are not used. Returns how the
  // case ended as run_child() would have: the status the driver reports for it, or the
  // process's own end (a crash, the deadline), after which the next case starts a new one.
  ChildOutcome run_case(const DriverInvocation& invocation, const SpawnSpec& spec);

  // The next case starts a new process (this one broke the protocol in its last case).
  void retire();

 private:
  struct Process;
  class CaseReader;

  std::vector<std::string> driver_argv_;
  std::filesystem::path log_dir_;
  std::unique_ptr<Process> process_;
  unsigned long cases_ = 0;
};

}  // namespace mcpping
