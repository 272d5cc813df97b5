// mcp-mock-http-server --script FILE --evidence-dir DIR
//
// The MCP server the runner starts for an HTTP case: Streamable HTTP or legacy HTTP+SSE on
// 127.0.0.1 (the resolved script's `transport`). Prints {"url":...} as its only stdout
// line once it accepts connections, runs the script, writes its evidence into DIR.
// Exit status: 0 after a run, 2 for a bad command line or script or a failed start.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "engine/interpreter.hpp"
#include "engine/scenario.hpp"
#include "engine/transcript.hpp"
#include "http/http_channel.hpp"

namespace {

using namespace mcpping;

constexpr int kBadInput = 2;
// How long a run may overstay the case deadline (a handler stuck on a client) before the
// watchdog ends the process.
constexpr auto kWatchdogGrace = std::chrono::seconds(3);

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

// SIGTERM/SIGINT/SIGHUP (blocked in every thread) and the watchdog end the process at once,
// with an `end` record: workers may be blocked on clients.
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
        transcript_.event("still running " + std::to_string(kWatchdogGrace.count()) +
                          " s after the case deadline");
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
  if (!args) {
    std::fprintf(stderr, "usage: %s --script FILE --evidence-dir DIR\n", argv[0]);
    return kBadInput;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a vanished client is a failed write, not a dead server
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  sigaddset(&blocked, SIGHUP);
  ::pthread_sigmask(SIG_BLOCK, &blocked, nullptr);

  std::optional<Transcript> transcript;
  try {
    transcript.emplace(args->evidence_dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kBadInput;
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
    const auto transport = resolved["transport"].get<std::string>();
    if (transport != "streamable-http" && transport != "sse")
      throw FixtureError(
          args->script, "/transport",
          "the HTTP mock server runs \"streamable-http\" or \"sse\", not \"" + transport + "\"");
  } catch (const std::exception& e) {
    transcript->fatal(std::string("bad script: ") + e.what());
    transcript->end("fatal");
    std::fprintf(stderr, "bad script: %s\n", e.what());
    return kBadInput;
  }

  const auto deadline_ms = resolved["timeouts"]["case_deadline_ms"].get<double>();
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double, std::milli>(deadline_ms));
  HttpOptions options;
  options.legacy = resolved["transport"] == "sse";
  options.post_always_sse = resolved.contains("http") &&
                            resolved["http"].value("post_responses", std::string("auto")) == "sse";
  options.deadline = deadline;
  HttpChannel channel(*transcript, options);
  try {
    channel.start();
  } catch (const std::exception& e) {
    transcript->fatal(std::string("cannot serve HTTP: ") + e.what());
    transcript->end("fatal");
    std::fprintf(stderr, "cannot serve HTTP: %s\n", e.what());
    return kBadInput;
  }
  SignalThread signals(*transcript, deadline + kWatchdogGrace);
  // The runner waits for this line: the server accepts connections from now on.
  std::printf("%s\n", Json{{"url", channel.url()}}.dump().c_str());
  std::fflush(stdout);
  {
    Interpreter interpreter(resolved, channel, *transcript);
    interpreter.run();
  }
  channel.stop();
  return 0;
}
