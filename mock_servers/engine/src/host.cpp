#include "engine/host.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "case_clock.hpp"
#include "core/fixture_reader.hpp"
#include "core/text.hpp"
#include "engine/script.hpp"

namespace mcpping {

std::optional<HostArgs> parse_host_args(int argc, char** argv) {
  HostArgs args;
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

namespace {

sigset_t shutdown_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

// `fd`, or the exception naming `call` when it is not one.
int checked_fd(int fd, const char* call) {
  if (fd < 0) throw std::runtime_error(std::string(call) + " failed: " + std::strerror(errno));
  return fd;
}

int open_shutdown_signal_fd() {
  const sigset_t set = shutdown_signals();
  return checked_fd(::signalfd(-1, &set, SFD_CLOEXEC), "signalfd");
}

}  // namespace

int host_fail(Transcript& transcript, const std::string& what, bool on_stderr) {
  transcript.fatal(what);
  transcript.end("fatal");
  if (on_stderr) std::fprintf(stderr, "%s\n", what.c_str());
  return kHostBadInput;
}

int host_main(int argc, char** argv, bool on_stderr,
              const std::function<void(const std::string& file, const nlohmann::json&)>& check,
              const std::function<int(Transcript&, LoadedScript&)>& serve) {
  const bool help = argc == 2 && std::string(argv[1]) == "--help";
  const auto args = parse_host_args(argc, argv);
  if (help || !args) {
    if (help || on_stderr)
      std::fprintf(help ? stdout : stderr, "usage: %s --script FILE --evidence-dir DIR\n", argv[0]);
    return help ? 0 : kHostBadInput;
  }
  // SIGPIPE ignored (a client that goes away is a failed write, recorded, not a dead server)
  // and SIGTERM/SIGINT/SIGHUP blocked in every thread, for the ShutdownWatcher to take: before
  // any thread starts.
  ::signal(SIGPIPE, SIG_IGN);
  const sigset_t signals = shutdown_signals();
  ::pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::optional<Transcript> transcript;
  try {
    transcript.emplace(args->evidence_dir);
  } catch (const std::exception& e) {
    if (on_stderr) std::fprintf(stderr, "%s\n", e.what());
    return kHostBadInput;
  }
  // `mock.pid` in the evidence folder, so the runner can stop a server a client left behind.
  std::ofstream(std::filesystem::path(args->evidence_dir) / "mock.pid") << ::getpid() << "\n";
  LoadedScript loaded;
  try {
    loaded = load_script(args->script);
    if (check) check(args->script, loaded.resolved);
  } catch (const std::exception& e) {
    return host_fail(*transcript, std::string("bad script: ") + e.what(), on_stderr);
  }
  return serve(*transcript, loaded);
}

std::size_t write_stderr_bounded(int fd, std::string_view bytes, Clock::time_point deadline) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    pollfd ready_fd{fd, POLLOUT, 0};
    const int ready = ::poll(&ready_fd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (ready_fd.revents & (POLLERR | POLLHUP | POLLNVAL)) break;
    const auto piece = std::min<std::size_t>(4096, bytes.size() - written);
    const auto n = ::write(fd, bytes.data() + written, piece);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      break;
    }
    written += static_cast<std::size_t>(n);
  }
  return written;
}

LoadedScript load_script(const std::string& file) {
  auto resolved = parse_json_file(file);
  auto script = parse_resolved_script(resolved, file);
  return LoadedScript{std::move(resolved), std::move(script)};
}

Clock::time_point latest_script_end(const nlohmann::json& resolved) {
  const auto& timeouts = resolved["timeouts"];
  return Clock::now() +
         from_ms(timeouts["startup_ms"].get<double>() + timeouts["case_deadline_ms"].get<double>());
}

ShutdownWatcher::ShutdownWatcher(Transcript& transcript, Clock::time_point watchdog,
                                 std::string stuck_reason, Channel& channel)
    : transcript_(transcript),
      watchdog_(watchdog),
      stuck_reason_(std::move(stuck_reason)),
      channel_(channel),
      signal_fd_(open_shutdown_signal_fd()),
      stop_fd_(checked_fd(::eventfd(0, EFD_CLOEXEC), "eventfd")),
      thread_([this] { loop(); }) {}

ShutdownWatcher::~ShutdownWatcher() {
  const std::uint64_t one = 1;
  while (::write(stop_fd_, &one, sizeof one) < 0 && errno == EINTR) {
  }
  thread_.join();
  ::close(stop_fd_);
  ::close(signal_fd_);
}

ShutdownWatcher::Wake ShutdownWatcher::wait_until(Clock::time_point until, int* signal) const {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return Wake::kTimeout;
    pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {signal_fd_, POLLIN, 0}};
    const int timeout = static_cast<int>(std::min<std::int64_t>(left.count(), 60'000));
    const int ready = ::poll(fds, 2, timeout);
    if (ready < 0 && errno != EINTR) return Wake::kStop;  // cannot watch: let the run end it
    if (ready <= 0) continue;
    if (fds[0].revents != 0) return Wake::kStop;
    signalfd_siginfo info{};
    if (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      *signal = static_cast<int>(info.ssi_signo);
      return Wake::kSignal;
    }
  }
}

void ShutdownWatcher::loop() {
  int sig = 0;
  const Wake first = wait_until(watchdog_, &sig);
  if (first == Wake::kStop) return;
  if (first == Wake::kTimeout) {
    transcript_.event(stuck_reason_);
    transcript_.end("deadline");
    ::_exit(0);
  }
  const std::string name = sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "SIGHUP";
  // The runner sends SIGTERM once the driver has exited: the client is gone, as at end of
  // input. SIGINT and SIGHUP interrupt the run.
  transcript_.event("received " + name + ": finishing what the client already sent");
  channel_.end_input(sig == SIGTERM ? Incoming::Kind::Eof : Incoming::Kind::Interrupted);
  // The main thread ends the run (its own `end` record) and stops the watcher on its way out;
  // further signals change nothing.
  const auto give_up = Clock::now() + kSignalGrace;
  Wake next = Wake::kSignal;
  while (next == Wake::kSignal) next = wait_until(give_up, &sig);
  if (next == Wake::kStop) return;
  transcript_.event("still running " + format_ms(kSignalGrace.count()) + " ms after " + name);
  transcript_.end(name);
  ::_exit(0);
}

}  // namespace mcpping
