// Following a mock server through its evidence folder: its `mock.pid` and its transcript. For a
// mock server the runner did not start itself (over stdio the client starts it), these two
// files are all there is to go by.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>

namespace mcpping {

// The pid in `pid_file` (a mock server's `mock.pid`) when it still names a running mock server
// writing into that folder, not a process that reused the number.
std::optional<pid_t> running_mock_pid(const std::filesystem::path& pid_file);

enum class MockStop {
  kAfterGrace,      // it is ending by itself (its client is gone): SIGKILL only after the grace
  kTerminateFirst,  // SIGTERM now, SIGKILL after the grace
};

// Stops the mock server named by `pid_file`, if it still runs, and returns once it is gone
// (or 1 s after the SIGKILL).
void stop_mock_server(const std::filesystem::path& pid_file, std::chrono::milliseconds grace,
                      MockStop how);

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and the threads and children it
// starts later, so that wait_for_script_end() receives them as events instead of dying. Call it
// before starting anything a Ctrl-C must stop. (Children the suite spawns unblock them.)
// Returns the set blocked.
sigset_t block_shutdown_signals();

enum class ScriptEnd {
  kEnded,         // the transcript's `end` record
  kServerExited,  // the mock server exited without writing one (killed, crashed)
  kInterrupted,   // SIGINT, SIGTERM or SIGHUP
  kNeverStarted,  // no mock server wrote `mock.pid` within start_within
  kOverstayed,    // the mock server still ran run_within after it started
};

struct ScriptEndWait {
  ScriptEnd end = ScriptEnd::kEnded;
  int signal = 0;  // kInterrupted: which one
};

// Waits, on file and process events (no polling of the clock), until the script of the mock
// server writing into `evidence_dir` ends. `start_within` bounds the wait for the server to
// start (its `mock.pid`); from its start, `run_within` bounds the wait for its end. Only the
// first server to start is followed. Throws std::system_error when the machine refuses the
// inotify or signal descriptors.
ScriptEndWait wait_for_script_end(const std::filesystem::path& evidence_dir,
                                  std::chrono::milliseconds start_within,
                                  std::chrono::milliseconds run_within);

}  // namespace mcpping
