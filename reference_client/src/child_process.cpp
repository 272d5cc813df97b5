#include "child_process.hpp"

#include "mcp/error.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/start_dir.hpp>
#include <boost/process/v2/stdio.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>

namespace mcp::detail {
namespace bp2 = boost::process::v2;

namespace {

// Runs in the forked child before exec: the server gets default SIGPIPE behaviour even if
// this process ignores or blocks SIGPIPE (dispositions and masks survive exec).
struct RestoreSigpipe {
  template <class Launcher>
  bp2::error_code on_exec_setup(Launcher&, const bp2::filesystem::path&, const char* const*) {
    ::signal(SIGPIPE, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
    return {};
  }
};

std::filesystem::path resolve_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    // Checked here because Boost.Process 1.81 runs exit() instead of _exit() in the child
    // when execve fails, duplicating our buffered output (boostorg/process#514).
    if (::access(name.c_str(), X_OK) != 0) return {};
    return name;
  }
  return bp2::environment::find_executable(name);
}

ExitStatus decode(int status) {
  ExitStatus result;
  if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.signal = WTERMSIG(status);
  } else {
    result.code = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::filesystem::path& working_directory, int child_stdin,
                           int child_stdout, int child_stderr, std::function<void()> on_exit)
    : on_exit_(std::move(on_exit)) {
  if (argv.empty()) throw Error(errc::spawn_failed, "server command is empty");
  const std::filesystem::path executable = resolve_executable(argv.front());
  if (executable.empty()) {
    throw Error(errc::spawn_failed,
                "server executable not found or not executable: " + argv.front());
  }
  const std::vector<std::string> args(argv.begin() + 1, argv.end());

  // Same reason as above: nothing buffered may be inherited by the forked child.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);

  boost::asio::io_context context;  // only needed to construct the process; never run
  try {
    const std::filesystem::path start_dir =
        working_directory.empty() ? std::filesystem::current_path() : working_directory;
    bp2::process process(context, executable, args,
                         bp2::process_stdio{child_stdin, child_stdout, child_stderr},
                         bp2::process_start_dir{start_dir}, RestoreSigpipe{});
    pid_ = process.id();
    // We reap the child ourselves (waiter thread), so Boost must neither wait nor kill.
    process.detach();
  } catch (const std::exception& e) {
    throw Error(errc::spawn_failed, "could not start " + argv.front() + ": " + e.what());
  }
  waiter_ = std::thread([this] { wait_for_exit(); });
}

ChildProcess::~ChildProcess() {
  send_signal(SIGKILL);
  if (waiter_.joinable()) waiter_.join();
}

void ChildProcess::wait_for_exit() {
  // Wait without reaping first, so that a concurrent send_signal() cannot hit a pid the
  // kernel has already recycled: the pid stays ours until the reap below, done under the lock.
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard lock(mutex_);
    int status = 0;
    pid_t reaped = -1;
    do {
      reaped = ::waitpid(pid_, &status, 0);
    } while (reaped < 0 && errno == EINTR);
    status_ = reaped == pid_ ? decode(status) : ExitStatus{};
  }
  exited_cv_.notify_all();
  if (on_exit_) on_exit_();
}

bool ChildProcess::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return exited_cv_.wait_for(lock, timeout, [this] { return status_.has_value(); });
}

void ChildProcess::send_signal(int signal) {
  std::lock_guard lock(mutex_);
  if (!status_ && pid_ > 0) ::kill(pid_, signal);
}

std::optional<ExitStatus> ChildProcess::exit_status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

}  // namespace mcp::detail
