#include "conformance/child_process.hpp"

#include "conformance/process_detail.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
#include <system_error>

#include <boost/asio/io_context.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
// Boost 1.81 declares process_environment::on_setup inline in header-only mode but never
// includes its definition; without this, linking fails.
#include <boost/process/v2/impl/environment.ipp>

extern char** environ;

namespace mcpping {
namespace {

namespace asio = boost::asio;
namespace bp2 = boost::process::v2;
using process_detail::CappedFile;
using process_detail::Fd;

[[noreturn]] void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

// A pipe for a child's output: the read end goes to `reader`, the write end, for the child, is
// returned. Both are close-on-exec, so that no other child inherits them: a driver holding
// another case's pipe made that case wait for it (its output drain) until it ended.
Fd output_pipe(asio::readable_pipe& reader) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) throw_errno(errno, "pipe2");
  try {
    reader.assign(ends[0]);
  } catch (...) {
    ::close(ends[0]);
    ::close(ends[1]);
    throw;
  }
  return Fd(ends[1]);
}

Fd open_for_child(const std::filesystem::path& file, int flags) {
  const int fd = ::open(file.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) throw_errno(errno, "cannot open " + file.string());
  return Fd(fd);
}

}  // namespace

namespace process_detail {

// Starts `program` (argv[0] names it) with stdin, stdout and stderr from the given descriptors
// and no other descriptor open, in a process group of its own (one kill reaches everything
// the driver started), with SIGPIPE at its default and no signal blocked: the runner's
// libraries may ignore SIGPIPE (httplib does, process-wide), children inherit ignored
// dispositions across exec, and a client that would die of SIGPIPE must die of it here too.
//
// posix_spawn, not Boost.Process's fork: a fork copies the runner's page tables (the
// largest share of a short case's CPU), and its child then ran Boost.Asio's fork handlers,
// which allocate; under ThreadSanitizer such a child could wait forever for an allocator lock
// another thread held at the fork, and the runner forever for its exec. Boost.Process 1.81
// also left open in the child every descriptor below its exec-error pipe.
pid_t spawn(const std::filesystem::path& program, const std::vector<std::string>& argv,
            const std::vector<std::string>& environment, int in, int out, int err) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawnattr_init(&attributes);
  ::posix_spawn_file_actions_adddup2(&actions, in, STDIN_FILENO);
  ::posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
  ::posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
  ::posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigset_t none;
  sigemptyset(&none);
  ::posix_spawnattr_setflags(
      &attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  ::posix_spawnattr_setpgroup(&attributes, 0);
  ::posix_spawnattr_setsigdefault(&attributes, &defaults);
  ::posix_spawnattr_setsigmask(&attributes, &none);

  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  for (const auto& entry : environment) env.push_back(const_cast<char*>(entry.c_str()));
  env.push_back(nullptr);
  pid_t pid = -1;
  const int error =
      ::posix_spawn(&pid, program.c_str(), &actions, &attributes, args.data(), env.data());
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attributes);
  if (error != 0) throw_errno(error, "cannot execute " + program.string());
  return pid;
}

Fd open_pidfd(pid_t pid) { return Fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))); }

void record_wait_status(int status, ChildOutcome& outcome) {
  if (WIFSIGNALED(status)) {
    outcome.kind = ChildOutcome::Kind::kSignaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.kind = ChildOutcome::Kind::kExited;
    outcome.exit_code = WEXITSTATUS(status);
  }
}

}  // namespace process_detail

namespace {

// Reads one pipe to its end, keeping at most `cap` bytes in a file.
class Capture {
 public:
  Capture(asio::io_context& ctx, const std::filesystem::path& file, std::size_t cap)
      : pipe_(ctx), file_(file, cap) {}

  asio::readable_pipe& pipe() { return pipe_; }
  bool open() const { return open_; }
  std::size_t bytes() const { return file_.bytes(); }

  void start() {
    pipe_.async_read_some(asio::buffer(buffer_),
                          [this](boost::system::error_code ec, std::size_t n) {
                            file_.write(std::string_view(buffer_.data(), n));
                            if (ec) {
                              open_ = false;
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
  asio::readable_pipe pipe_;
  CappedFile file_;
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

LiveGroup::LiveGroup(pid_t group) : group_(group) {
  const std::lock_guard lock(live_groups_mutex);
  live_groups.insert(group_);
  if (all_killed) ::kill(-group_, SIGKILL);
}

LiveGroup::~LiveGroup() {
  const std::lock_guard lock(live_groups_mutex);
  live_groups.erase(group_);
}

}  // namespace process_groups

using process_groups::all_killed;
using process_groups::live_groups;
using process_groups::live_groups_mutex;
using process_groups::LiveGroup;

namespace process_detail {

std::vector<std::string> child_environment(const std::map<std::string, std::string>& extra,
                                           const std::vector<std::string>& unset) {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view kv(*entry);
    const std::string name(kv.substr(0, kv.find('=')));
    if (std::find(unset.begin(), unset.end(), name) != unset.end()) continue;
    if (!extra.count(name)) env.emplace_back(kv);
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

}  // namespace process_detail

using process_detail::child_environment;
using process_detail::record_wait_status;
using process_detail::resolve_program;
using process_detail::spawn;

namespace {

ChildOutcome spawn_failure(std::string why) {
  ChildOutcome outcome;
  outcome.kind = ChildOutcome::Kind::kSpawnFailed;
  outcome.spawn_error = std::move(why);
  return outcome;
}

// A started child under watch on one io_context: its exit, then a bounded drain of its pipes,
// and its deadline (moved on while spec.extend_while() says so; then SIGTERM to its group and
// SIGKILL after the grace).
class ChildWatch {
 public:
  ChildWatch(asio::io_context& ctx, const SpawnSpec& spec, bp2::process& child, Capture& out,
             Capture& err, ChildOutcome& outcome, std::chrono::steady_clock::time_point started)
      : ctx_(ctx),
        spec_(spec),
        child_(child),
        group_(child.id()),
        out_(out),
        err_(err),
        outcome_(outcome),
        limit_(started + std::max(spec.deadline, spec.deadline_limit)),
        deadline_(ctx),
        drain_(ctx) {}

  // Runs until the child has exited and both pipes are closed (or the drain timer closed
  // them), then kills what is left of its group: no run leaves a process behind.
  void run() {
    out_.start();
    err_.start();
    child_.async_wait([this](boost::system::error_code, int) { on_exit(); });
    deadline_.expires_after(spec_.deadline);
    deadline_.async_wait([this](boost::system::error_code ec) { on_deadline(ec); });
    while (!(exited_ && !out_.open() && !err_.open())) {
      if (ctx_.run_one() == 0) break;
    }
    drain_.cancel();
    if (kill_group_now()) outcome_.group_killed_after_exit = true;
    ctx_.poll();
  }

  bool timed_out() const { return timed_out_; }

 private:
  bool kill_group_now() {
    if (::kill(-group_, 0) == 0) {
      ::kill(-group_, SIGKILL);
      return true;
    }
    return false;
  }

  void on_exit() {
    exited_ = true;
    deadline_.cancel();
    // Children of the driver may still hold its pipes: give them a bounded time to finish.
    drain_.expires_after(spec_.output_drain);
    drain_.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      outcome_.group_killed_after_exit = kill_group_now();
      out_.close();
      err_.close();
    });
  }

  void on_deadline(boost::system::error_code ec) {
    if (ec || exited_) return;
    if (spec_.extend_while && std::chrono::steady_clock::now() + spec_.kill_grace <= limit_ &&
        spec_.extend_while()) {
      deadline_.expires_after(spec_.kill_grace);
      deadline_.async_wait([this](boost::system::error_code next) { on_deadline(next); });
      return;
    }
    timed_out_ = true;
    ::kill(-group_, SIGTERM);
    deadline_.expires_after(spec_.kill_grace);
    deadline_.async_wait([this](boost::system::error_code ec2) {
      if (!ec2 && !exited_) ::kill(-group_, SIGKILL);
    });
  }

  asio::io_context& ctx_;
  const SpawnSpec& spec_;
  bp2::process& child_;
  const pid_t group_;
  Capture& out_;
  Capture& err_;
  ChildOutcome& outcome_;
  const std::chrono::steady_clock::time_point limit_;
  asio::steady_timer deadline_;
  asio::steady_timer drain_;
  bool exited_ = false;
  bool timed_out_ = false;
};

}  // namespace

ChildOutcome run_child(const SpawnSpec& spec) {
  const auto started = std::chrono::steady_clock::now();
  if (spec.argv.empty()) return spawn_failure("empty command");
  std::string why;
  const auto program = resolve_program(spec.argv.front(), why);
  if (!program) return spawn_failure(why);

  asio::io_context ctx;
  Capture out(ctx, spec.stdout_file, spec.capture_cap);
  Capture err(ctx, spec.stderr_file, spec.capture_cap);
  std::vector<std::string> argv = spec.argv;
  argv.front() = program->string();
  std::optional<bp2::process> child;
  try {
    // The child's ends are closed here once it has them.
    const Fd in = open_for_child("/dev/null", O_RDONLY);
    const Fd out_end = output_pipe(out.pipe());
    const Fd err_end = output_pipe(err.pipe());
    child.emplace(ctx.get_executor(), spawn(*program, argv, child_environment(spec.extra_env),
                                            in.get(), out_end.get(), err_end.get()));
  } catch (const std::exception& e) {
    return spawn_failure(e.what());
  }
  const LiveGroup registered(child->id());

  ChildOutcome outcome;
  ChildWatch watch(ctx, spec, *child, out, err, outcome, started);
  watch.run();
  const int status = child->native_exit_code();
  outcome.stdout_bytes = out.bytes();
  outcome.stderr_bytes = err.bytes();
  outcome.wall = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  if (watch.timed_out()) {
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
  try {
    const Fd in = open_for_child("/dev/null", O_RDONLY);
    const Fd out = output_pipe(state_->out);
    const Fd err = open_for_child(stderr_file, O_WRONLY | O_CREAT | O_TRUNC);
    std::vector<std::string> args = argv;
    args.front() = program->string();
    state_->child.emplace(state_->ctx.get_executor(), spawn(*program, args, child_environment({}),
                                                            in.get(), out.get(), err.get()));
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot start " + argv[0] + ": " + e.what());
  }
  state_->registered.emplace(state_->child->id());
}

BackgroundProcess::~BackgroundProcess() {
  try {
    stop(std::chrono::milliseconds(1000));
  } catch (...) {
    // Nothing more can be done here, and a destructor must not throw.
  }
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
  if (const Fd pidfd = process_detail::open_pidfd(s.child->id())) {
    pollfd waiter{pidfd.get(), POLLIN, 0};
    ::poll(&waiter, 1, static_cast<int>(timeout.count()));
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
