// What every mock server executable does around the interpreter, whatever its transport:
// its command line, shutdown signals, the watchdog, the pid file and the script file.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/channel.hpp"
#include "engine/script.hpp"
#include "engine/transcript.hpp"

namespace mcpping {

inline constexpr int kHostBadInput = 2;

struct HostArgs {
  std::string script;
  std::string evidence_dir;
};

// `--script FILE --evidence-dir DIR`; nullopt for anything else.
std::optional<HostArgs> parse_host_args(int argc, char** argv);

// Writes to a stderr-like descriptor, waiting (poll) while it is full, so that a client that
// never drains the pipe holds the writer until `deadline` and no longer. At most one pipe
// page per write: a pipe that polls writable takes it without blocking. Returns the bytes
// written.
std::size_t write_stderr_bounded(int fd, std::string_view bytes, Clock::time_point deadline);

// A resolved script file, read and parsed once.
struct LoadedScript {
  nlohmann::json resolved;
  ParsedScript script;  // the typed steps, for Interpreter(resolved, script, ...)
};
// Reads and parses a resolved script; throws FixtureError naming the file.
LoadedScript load_script(const std::string& file);

// Records `what` as the run's fatal end, and prints it when `on_stderr`; returns kHostBadInput.
int host_fail(Transcript& transcript, const std::string& what, bool on_stderr);

// What each mock server's main does around its channel: `--help`, the command line (its usage
// on stderr when `on_stderr`: stdio's stderr belongs to the script), shutdown signals, the
// transcript, the pid file, the script (refused when `check` throws), then `serve`. Exit
// status: 0 after --help or a run, kHostBadInput for a bad command line or script.
int host_main(int argc, char** argv, bool on_stderr,
              const std::function<void(const std::string& file, const nlohmann::json&)>& check,
              const std::function<int(Transcript&, LoadedScript&)>& serve);

// The latest a resolved script can end, from now: its start-up budget and case deadline (the
// case deadline runs from the client's first contact, at the latest when the budget ends).
Clock::time_point latest_script_end(const nlohmann::json& resolved);

// On SIGTERM/SIGINT/SIGHUP: records it and ends the channel's input (SIGTERM, which the
// runner sends once the driver has exited: the client is gone, as at end of input; SIGINT,
// SIGHUP: interrupted), so the script finishes what the client already did (a message that
// had arrived must still be recorded); if the main thread has not finished
// within kSignalGrace (it may be stuck in a write), ends the process. Also ends it when the
// watchdog time passes (a write blocked on a client that stopped reading), recording why.
// The thread sleeps in poll() on a signalfd and an eventfd, so destruction wakes it at once:
// a run's end is not delayed by a polling interval.
class ShutdownWatcher {
 public:
  static constexpr std::chrono::milliseconds kSignalGrace{1000};

  ShutdownWatcher(Transcript& transcript, Clock::time_point watchdog, std::string stuck_reason,
                  Channel& channel);
  ~ShutdownWatcher();
  ShutdownWatcher(const ShutdownWatcher&) = delete;
  ShutdownWatcher& operator=(const ShutdownWatcher&) = delete;

 private:
  enum class Wake { kSignal, kStop, kTimeout };
  void loop();
  // Sleeps until a shutdown signal (its number in *signal), the destructor's stop, or `until`.
  Wake wait_until(Clock::time_point until, int* signal) const;

  Transcript& transcript_;
  Clock::time_point watchdog_;
  std::string stuck_reason_;
  Channel& channel_;
  int signal_fd_;  // the shutdown signals, blocked in every thread by host_main()
  int stop_fd_;    // eventfd the destructor writes
  std::thread thread_;
};

}  // namespace mcpping
