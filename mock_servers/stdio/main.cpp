// mcp-mock-stdio-server --script FILE --evidence-dir DIR
//
// The MCP server a client under test spawns on stdio. It runs one resolved scenario
// script (resolve_script()) and writes its evidence into DIR. stdin/stdout belong to the
// protocol and stderr to the script's stderr steps, so its own diagnostics go into the
// transcript only. Exit status: 0 after a run (whatever the client did), 2 for a bad
// command line or script.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "engine/interpreter.hpp"
#include "engine/scenario.hpp"
#include "engine/transcript.hpp"
#include "stdio/stdio_channel.hpp"

namespace {

using namespace mcpping;

constexpr int kBadInput = 2;
// How long the watchdog lets a run overstay the case deadline (a write blocked on a
// client that stopped reading) before it ends the process.
constexpr auto kWatchdogGrace = std::chrono::seconds(2);

struct Args {
  std::string script;
  std::string evidence_dir;
};

std::optional<Args> parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--script" || arg == "--evidence-dir") && i + 1 < argc) {
      (arg == "--script" ? args.script : args.evidence_dir) = argv[++i];
    } else {
      return std::nullopt;
    }
  }
  if (args.script.empty() || args.evidence_dir.empty()) return std::nullopt;
  return args;
}

// Waits for SIGTERM/SIGINT/SIGHUP (blocked in every thread) and for the watchdog
// deadline. Either ends the process at once: the main thread may be blocked in a write.
class SignalThread {
 public:
  SignalThread(Transcript& transcript, Clock::time_point watchdog)
      : transcript_(transcript), watchdog_(watchdog), thread_([this] { loop(); }) {}
  ~SignalThread() {
    done_ = true;
    thread_.join();
  }

 private:
  void loop() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    const timespec slice{0, 100 * 1000 * 1000};
    while (!done_) {
      const int sig = ::sigtimedwait(&set, nullptr, &slice);
      if (sig > 0) {
        const std::string name = sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "SIGHUP";
        transcript_.event("received " + name);
        transcript_.end(name);
        ::_exit(0);
      }
      if (Clock::now() > watchdog_ && !done_) {
        transcript_.event(
            "still running " + std::to_string(kWatchdogGrace.count()) +
            " s after the case deadline (a write blocked on a client that stopped reading?)");
        transcript_.end("deadline");
        ::_exit(0);
      }
    }
  }

  Transcript& transcript_;
  Clock::time_point watchdog_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--help") {
    std::printf("usage: %s --script FILE --evidence-dir DIR\n", argv[0]);
    return 0;
  }
  const auto args = parse_args(argc, argv);
  if (!args) return kBadInput;

  // A client that closes its end must show up as EPIPE in the transcript, not kill us.
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  sigaddset(&blocked, SIGHUP);
  ::pthread_sigmask(SIG_BLOCK, &blocked, nullptr);

  std::optional<Transcript> transcript;
  try {
    transcript.emplace(args->evidence_dir);
  } catch (const std::exception&) {
    return kBadInput;  // nowhere to report it: stderr belongs to the script
  }
  {
    std::ofstream pid_file(std::filesystem::path(args->evidence_dir) / "mock.pid");
    pid_file << ::getpid() << "\n";
  }

  Json resolved;
  try {
    std::ifstream in(args->script, std::ios::binary);
    if (!in) throw FixtureError(args->script, "", "cannot read the file");
    std::ostringstream text;
    text << in.rdbuf();
    resolved = Json::parse(text.str(), nullptr, false);
    if (resolved.is_discarded()) throw FixtureError(args->script, "", "not valid JSON");
    validate_resolved_script(resolved, args->script);
  } catch (const std::exception& e) {
    transcript->fatal(std::string("bad script: ") + e.what());
    transcript->end("fatal");
    return kBadInput;
  }

  const auto deadline_ms = resolved["timeouts"]["case_deadline_ms"].get<double>();
  const auto watchdog = Clock::now() +
                        std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double, std::milli>(deadline_ms)) +
                        kWatchdogGrace;
  SignalThread signals(*transcript, watchdog);
  StdioChannel channel(STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO,
                       resolved["line_cap_bytes"].get<std::size_t>());
  channel.start();
  {
    Interpreter interpreter(resolved, channel, *transcript);
    interpreter.run();
  }
  channel.stop();
  return 0;
}
