// A spawned server process: Boost.Process v2 starts it (the 1.81 workarounds stay in this
// file), a waiter thread notices its exit, and signals are never sent to a reaped pid.
#pragma once

#include "mcp/stdio_transport.hpp"

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace mcp::detail {

class ChildProcess {
 public:
  // Spawns `argv` with its stdin/stdout/stderr bound to the given descriptors (which the
  // caller still owns). `on_exit` runs on the waiter thread once the child has been reaped.
  // Throws mcp::Error(errc::spawn_failed).
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& working_directory,
               int child_stdin, int child_stdout, int child_stderr, std::function<void()> on_exit);
  // SIGKILLs a child still running, then reaps it.
  ~ChildProcess();

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  int pid() const noexcept { return pid_; }
  // True once the child has exited and been reaped (waits at most `timeout`).
  bool wait_for(std::chrono::milliseconds timeout);
  // Sends `signal` unless the child has already been reaped.
  void send_signal(int signal);
  std::optional<ExitStatus> exit_status() const;

 private:
  void wait_for_exit();

  int pid_ = -1;
  std::function<void()> on_exit_;
  mutable std::mutex mutex_;
  std::condition_variable exited_cv_;
  std::optional<ExitStatus> status_;
  std::thread waiter_;
};

}  // namespace mcp::detail
