#include "conformance/child_process.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include <boost/asio/io_context.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>
// Boost 1.81 declares process_environment::on_setup inline in header-only mode but never
// includes its definition; without this, linking fails.
#include <boost/process/v2/impl/environment.ipp>

extern char** environ;

namespace mcpping {
namespace {

namespace asio = boost::asio;
namespace bp2 = boost::process::v2;

// Marks every descriptor from `first` on close-on-exec. Async-signal-safe: it runs between
// fork and exec.
void close_on_exec_from(int first) {
  if (::close_range(static_cast<unsigned>(first), ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  // Kernels before 5.11 lack the flag.
  const long limit = ::sysconf(_SC_OPEN_MAX);
  for (int fd = first; fd < limit; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

// Runs in the child between fork and exec.
struct ChildSetup {
  template <typename Launcher>
  boost::system::error_code on_exec_setup(Launcher&, const std::filesystem::path&,
                                          const char* const*) {
    // Its own process group, so that one kill reaches everything the driver started.
    ::setpgid(0, 0);
    // The runner's libraries may ignore SIGPIPE (httplib does, process-wide) and children
    // inherit ignored dispositions across exec. A client that would die of SIGPIPE must die
    // of it here too, or the suite cannot see that defect.
    ::signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    // Only stdio passes. Boost.Process 1.81 closes only the descriptors above its exec-error
    // pipe (its close_all compares each whitelisted fd with itself), so a driver inherited
    // every descriptor the runner had open without close-on-exec: among them the pipe ends of
    // a driver another thread was starting at that moment, which that case then waited for
    // (its 2 s output drain) until this driver ended.
    close_on_exec_from(3);
    return {};
  }
};

// How a child ended, from its wait status: an exit code or the signal that killed it.
void record_wait_status(int status, ChildOutcome& outcome) {
  if (WIFSIGNALED(status)) {
    outcome.kind = ChildOutcome::Kind::kSignaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.kind = ChildOutcome::Kind::kExited;
    outcome.exit_code = WEXITSTATUS(status);
  }
}

// Reads one pipe to its end, keeping at most `cap` bytes in a file.
class Capture {
 public:
  Capture(asio::io_context& ctx, const std::filesystem::path& file, std::size_t cap)
      : pipe_(ctx), file_(file, std::ios::binary | std::ios::trunc), cap_(cap) {}

  asio::readable_pipe& pipe() { return pipe_; }
  bool open() const { return open_; }
  std::size_t bytes() const { return bytes_; }

  void start() {
    pipe_.async_read_some(asio::buffer(buffer_),
                          [this](boost::system::error_code ec, std::size_t n) {
                            if (n > 0) keep(n);
                            if (ec) {
                              open_ = false;
                              if (bytes_ > cap_) {
                                file_ << "\n[mcp-ping-conformance: output cut at " << cap_ << " of "
                                      << bytes_ << " bytes]\n";
                              }
                              file_.flush();
                              return;
                            }
                            start();
                          });
  }

  void close() {
    boost::system::error_code ignored;
    pipe_.close(ignored);
    open_ = false;
  }

 private:
  void keep(std::size_t n) {
    if (bytes_ < cap_)
      file_.write(buffer_.data(), static_cast<std::streamsize>(std::min(n, cap_ - bytes_)));
    bytes_ += n;
  }

  asio::readable_pipe pipe_;
  std::ofstream file_;
  std::size_t cap_;
  std::size_t bytes_ = 0;
  bool open_ = true;
  std::array<char, 65536> buffer_{};
};

}  // namespace

// Named, not anonymous: BackgroundProcess::State, a member of a class the header declares,
// holds a LiveGroup, and GCC refuses a field of an anonymous type there when the file is
// compiled inside a unity translation unit (-Wsubobject-linkage).
namespace process_groups {

// The process groups being waited for, so that an interrupted run can kill them all.
std::mutex live_groups_mutex;
std::set<pid_t> live_groups;
// Set by kill_all_children(): a child started later, by a thread that had not yet seen the
// run end, is killed as soon as it is registered.
bool all_killed = false;

class LiveGroup {
 public:
  explicit LiveGroup(pid_t group) : group_(group) {
    const std::lock_guard lock(live_groups_mutex);
    live_groups.insert(group_);
    if (all_killed) ::kill(-group_, SIGKILL);
  }
  ~LiveGroup() {
    const std::lock_guard lock(live_groups_mutex);
    live_groups.erase(group_);
  }
  LiveGroup(const LiveGroup&) = delete;
  LiveGroup& operator=(const LiveGroup&) = delete;

 private:
  pid_t group_;
};

}  // namespace process_groups

using process_groups::all_killed;
using process_groups::live_groups;
using process_groups::live_groups_mutex;
using process_groups::LiveGroup;

namespace {

std::vector<std::string> child_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view kv(*entry);
    const auto name = kv.substr(0, kv.find('='));
    if (!extra.count(std::string(name))) env.emplace_back(kv);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

// The program to exec: argv[0] as a path, or looked up in PATH when it has no slash.
std::optional<std::filesystem::path> resolve_program(const std::string& name, std::string& why) {
  std::filesystem::path program = name;
  if (name.find('/') == std::string::npos) {
    program = bp2::environment::find_executable(name);
    if (program.empty()) {
      why = "'" + name + "' is not found in PATH";
      return std::nullopt;
    }
  }
  // Checked here because a failed exec in Boost.Process 1.81 runs the parent's atexit handlers
  // in the child (boostorg/process#514).
  if (::access(program.c_str(), X_OK) != 0) {
    why = "'" + program.string() + "': " + std::strerror(errno);
    return std::nullopt;
  }
  return program;
}

}  // namespace

ChildOutcome run_child(const SpawnSpec& spec) {
  ChildOutcome outcome;
  const auto started = std::chrono::steady_clock::now();
  if (spec.argv.empty()) {
    outcome.kind = ChildOutcome::Kind::kSpawnFailed;
    outcome.spawn_error = "empty command";
    return outcome;
  }
  std::string why;
  const auto program = resolve_program(spec.argv.front(), why);
  if (!program) {
    outcome.kind = ChildOutcome::Kind::kSpawnFailed;
    outcome.spawn_error = why;
    return outcome;
  }

  asio::io_context ctx;
  Capture out(ctx, spec.stdout_file, spec.capture_cap);
  Capture err(ctx, spec.stderr_file, spec.capture_cap);
  const std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());

  // Buffered output would otherwise be duplicated by a child whose exec fails (#514).
  std::fflush(nullptr);
  std::cout.flush();
  std::optional<bp2::process> child;
  try {
    child.emplace(ctx, *program, args, bp2::process_stdio{nullptr, out.pipe(), err.pipe()},
                  bp2::process_environment{child_environment(spec.extra_env)}, ChildSetup{});
  } catch (const std::exception& e) {
    outcome.kind = ChildOutcome::Kind::kSpawnFailed;
    outcome.spawn_error = e.what();
    return outcome;
  }
  const pid_t group = child->id();
  const LiveGroup registered(group);

  bool exited = false;
  bool timed_out = false;
  asio::steady_timer deadline(ctx);
  asio::steady_timer drain(ctx);

  const auto kill_group_now = [&] {
    if (::kill(-group, 0) == 0) {
      ::kill(-group, SIGKILL);
      return true;
    }
    return false;
  };

  out.start();
  err.start();
  child->async_wait([&](boost::system::error_code, int) {
    exited = true;
    deadline.cancel();
    // Children of the driver may still hold its pipes: give them a bounded time to finish.
    drain.expires_after(spec.output_drain);
    drain.async_wait([&](boost::system::error_code ec) {
      if (ec) return;
      outcome.group_killed_after_exit = kill_group_now();
      out.close();
      err.close();
    });
  });
  deadline.expires_after(spec.deadline);
  deadline.async_wait([&](boost::system::error_code ec) {
    if (ec || exited) return;
    timed_out = true;
    ::kill(-group, SIGTERM);
    deadline.expires_after(spec.kill_grace);
    deadline.async_wait([&](boost::system::error_code ec2) {
      if (!ec2 && !exited) ::kill(-group, SIGKILL);
    });
  });

  // Run until the child has exited and both pipes are closed (or the drain timer closed them).
  while (!(exited && !out.open() && !err.open())) {
    if (ctx.run_one() == 0) break;
  }
  drain.cancel();
  // Whatever is left of the group goes now: no run leaves a process behind.
  if (kill_group_now()) outcome.group_killed_after_exit = true;
  ctx.poll();

  const int status = child->native_exit_code();
  outcome.stdout_bytes = out.bytes();
  outcome.stderr_bytes = err.bytes();
  outcome.wall = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  if (timed_out) {
    outcome.kind = ChildOutcome::Kind::kTimedOut;
  } else {
    record_wait_status(status, outcome);
  }
  return outcome;
}

struct BackgroundProcess::State {
  asio::io_context ctx;
  asio::readable_pipe out{ctx};
  std::optional<bp2::process> child;
  std::optional<LiveGroup> registered;
  std::string buffer;
  bool stdout_ended = false;
  std::optional<ChildOutcome> ended;  // wait() saw it exit
  std::optional<std::string> outcome;
};

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv,
                                     const std::filesystem::path& stderr_file)
    : state_(std::make_unique<State>()) {
  std::string why;
  const auto program = argv.empty() ? std::nullopt : resolve_program(argv.front(), why);
  if (!program)
    throw std::runtime_error("cannot start " + (argv.empty() ? "''" : argv[0]) + ": " + why);
  std::FILE* err = std::fopen(stderr_file.c_str(), "wb");
  if (!err) throw std::runtime_error("cannot write " + stderr_file.string());
  std::fflush(nullptr);
  std::cout.flush();
  try {
    state_->child.emplace(state_->ctx, *program,
                          std::vector<std::string>(argv.begin() + 1, argv.end()),
                          bp2::process_stdio{nullptr, state_->out, err}, ChildSetup{});
  } catch (const std::exception& e) {
    std::fclose(err);
    throw std::runtime_error("cannot start " + argv[0] + ": " + e.what());
  }
  std::fclose(err);
  state_->registered.emplace(state_->child->id());
}

BackgroundProcess::~BackgroundProcess() {
  try {
    stop(std::chrono::milliseconds(1000));
  } catch (...) {
    // Nothing more can be done here, and a destructor must not throw.
  }
}

std::optional<std::string> BackgroundProcess::first_line(std::chrono::milliseconds timeout) {
  return next_line(timeout);
}

std::optional<std::string> BackgroundProcess::next_line(std::chrono::milliseconds timeout) {
  auto& s = *state_;
  const auto take_line = [&]() -> std::optional<std::string> {
    const auto nl = s.buffer.find('\n');
    if (nl == std::string::npos) return std::nullopt;
    std::string line = s.buffer.substr(0, nl);
    s.buffer.erase(0, nl + 1);
    return line;
  };
  if (auto line = take_line()) return line;
  if (s.stdout_ended) return std::nullopt;
  std::optional<std::string> line;
  bool done = false;
  asio::steady_timer timer(s.ctx);
  timer.expires_after(timeout);
  timer.async_wait([&](boost::system::error_code ec) {
    if (!ec) done = true;
  });
  std::array<char, 4096> chunk{};
  std::function<void()> read_more = [&] {
    s.out.async_read_some(asio::buffer(chunk), [&](boost::system::error_code ec, std::size_t n) {
      s.buffer.append(chunk.data(), n);
      if ((line = take_line())) {
        done = true;
      } else if (ec || s.buffer.size() > 65536) {
        s.stdout_ended = ec != asio::error::operation_aborted;
        done = true;
      } else {
        read_more();
      }
    });
  };
  read_more();
  while (!done && s.ctx.run_one() > 0) {
  }
  timer.cancel();
  s.out.cancel();
  s.ctx.poll();
  s.ctx.restart();
  return line;
}

void BackgroundProcess::signal_group(int signal) {
  if (state_->child && !state_->outcome) ::kill(-state_->child->id(), signal);
}

std::optional<ChildOutcome> BackgroundProcess::wait(std::chrono::milliseconds timeout) {
  auto& s = *state_;
  if (s.ended) return s.ended;
  if (!s.child || s.outcome) return std::nullopt;
  // A pidfd turns readable when the process ends; running() then reaps it.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, s.child->id(), 0));
  if (pidfd >= 0) {
    pollfd waiter{pidfd, POLLIN, 0};
    ::poll(&waiter, 1, static_cast<int>(timeout.count()));
    ::close(pidfd);
  }
  boost::system::error_code ec;
  if (s.child->running(ec) || ec) return std::nullopt;
  ChildOutcome outcome;
  record_wait_status(s.child->native_exit_code(), outcome);
  s.ended = outcome;
  return outcome;
}

std::string BackgroundProcess::stop(std::chrono::milliseconds grace) {
  auto& s = *state_;
  if (s.outcome) return *s.outcome;
  if (!s.child) return *(s.outcome = "not started");
  const pid_t group = s.child->id();
  if (s.ended) {
    ::kill(-group, SIGKILL);  // anything it left in its group
    s.registered.reset();
    return *(s.outcome = describe(*s.ended));
  }
  ::kill(-group, SIGTERM);
  bool exited = false;
  asio::steady_timer timer(s.ctx);
  s.child->async_wait([&](boost::system::error_code, int) {
    exited = true;
    timer.cancel();
  });
  timer.expires_after(grace);
  timer.async_wait([&](boost::system::error_code ec) {
    if (!ec && !exited) ::kill(-group, SIGKILL);
  });
  while (!exited && s.ctx.run_one() > 0) {
  }
  ::kill(-group, SIGKILL);  // anything it left in its group
  boost::system::error_code ignored;
  s.out.close(ignored);
  s.ctx.poll();
  const int status = s.child->native_exit_code();
  ChildOutcome outcome;
  record_wait_status(status, outcome);
  s.registered.reset();
  s.outcome = describe(outcome);
  return *s.outcome;
}

void kill_all_children() {
  const std::lock_guard lock(live_groups_mutex);
  all_killed = true;
  for (const pid_t group : live_groups) ::kill(-group, SIGKILL);
}

std::string describe(const ChildOutcome& outcome) {
  switch (outcome.kind) {
    case ChildOutcome::Kind::kExited:
      return "exit " + std::to_string(outcome.exit_code);
    case ChildOutcome::Kind::kSignaled: {
      const char* name = sigabbrev_np(outcome.signal);
      return "killed by signal " + std::to_string(outcome.signal) +
             (name ? " (SIG" + std::string(name) + ")" : std::string());
    }
    case ChildOutcome::Kind::kTimedOut:
      return "still running after " + std::to_string(outcome.wall.count()) +
             " ms; its process group was killed";
    case ChildOutcome::Kind::kSpawnFailed:
      return "could not start: " + outcome.spawn_error;
  }
  return "unknown";
}

}  // namespace mcpping
