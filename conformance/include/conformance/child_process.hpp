// Runs one program in its own process group with a hard deadline and bounded output capture.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcpping {

struct SpawnSpec {
  std::vector<std::string> argv;                 // argv[0] is the program; no shell
  std::map<std::string, std::string> extra_env;  // added to (or replacing in) our env
  std::filesystem::path stdout_file;             // captured here, up to capture_cap
  std::filesystem::path stderr_file;
  std::size_t capture_cap = 8u << 20;            // bytes kept per stream; the rest counted
  std::chrono::milliseconds deadline{10000};     // then SIGTERM to the group
  std::chrono::milliseconds kill_grace{1000};    // then SIGKILL to the group
  std::chrono::milliseconds output_drain{2000};  // after exit: wait for pipes to close
  // Asked each time the deadline passes: true while what the child legitimately waits on is
  // still at work (a mock server whose case deadline ran from the client's late first
  // contact). The deadline then moves on by `kill_grace`, never past `deadline_limit`.
  std::function<bool()> extend_while;
  std::chrono::milliseconds deadline_limit{0};
};

struct ChildOutcome {
  enum class Kind {
    kExited,       // exit status in `exit_code`
    kSignaled,     // died of `signal` (not ours)
    kTimedOut,     // still running at the deadline; we killed the group
    kSpawnFailed,  // could not start: `spawn_error`
  };
  Kind kind = Kind::kExited;
  int exit_code = 0;
  int signal = 0;
  std::string spawn_error;
  std::size_t stdout_bytes = 0;  // as produced, including what the cap dropped
  std::size_t stderr_bytes = 0;
  std::chrono::milliseconds wall{0};
  bool group_killed_after_exit = false;  // processes left in the group had to be killed
};

// Starts the program, waits until it exits or the deadline passes, kills its whole process
// group, and returns only when nothing of it is left running. Never throws for the child's
// behaviour; throws std::system_error only when the machine refuses pipes or threads.
ChildOutcome run_child(const SpawnSpec& spec);

// A server the runner starts and stops around a case (the HTTP mock server): started in its
// own process group, its first stdout line read with a bound, stopped with SIGTERM, then
// SIGKILL. The destructor stops it too, so no path leaves it running.
class BackgroundProcess {
 public:
  // Throws std::runtime_error when the program cannot be started.
  BackgroundProcess(const std::vector<std::string>& argv, const std::filesystem::path& stderr_file);
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  // Each line it prints on stdout in turn, without the newline; nullopt when none comes within
  // `timeout`, or its stdout has ended (or it exited first).
  std::optional<std::string> next_line(std::chrono::milliseconds timeout);

  // Sends `signal` to its process group, as a Ctrl-C at a terminal reaches a foreground job.
  void signal_group(int signal);

  // Up to `timeout` for it to exit by itself: how it ended, or nullopt while it runs on.
  std::optional<ChildOutcome> wait(std::chrono::milliseconds timeout);

  // SIGTERM to its group, up to `grace` for it to exit, then SIGKILL. Returns how it ended
  // ("exit 0", "killed by signal 9 (SIGKILL)"). Idempotent.
  std::string stop(std::chrono::milliseconds grace);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Kills the process groups of every child run_child() is waiting for, and of every child it
// starts from then on: the run is ending (an interrupt, a failed pre-check) and a case thread
// may be starting its driver just now. Drivers live in their own groups, so a Ctrl-C at the
// terminal does not reach them.
void kill_all_children();

// "exit 3", "signal 13 (SIGPIPE)", "still running after 20000 ms", "could not start: ...".
std::string describe(const ChildOutcome& outcome);

}  // namespace mcpping
