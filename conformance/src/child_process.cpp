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
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <system_error>

#include <boost/process/v2/environment.hpp>
// Boost 1.81 declares process_environment::on_setup inline in header-only mode but never
// includes its definition; without this, linking fails.
#include <boost/process/v2/impl/environment.ipp>

extern char** environ;

namespace mcpping {

using Clock = std::chrono::steady_clock;

namespace {

using process_detail::CappedFile;
using process_detail::Fd;

[[noreturn]] void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

// A pipe for a child's output: the read end, non-blocking, goes to `reader`; the write end,
// for the child, is returned. Both are close-on-exec, so that no other child inherits them: a
// driver holding another case's pipe made that case wait for it (its output drain) until it
// ended.
Fd output_pipe(Fd& reader) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) throw_errno(errno, "pipe2");
  reader = Fd(ends[0]);
  ::fcntl(ends[0], F_SETFL, O_NONBLOCK);
  return Fd(ends[1]);
}

Fd open_for_child(const std::filesystem::path& file, int flags) {
  const int fd = ::open(file.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) throw_errno(errno, "cannot open " + file.string());
  return Fd(fd);
}

// Starts `program` (argv[0] names it) with stdin, stdout and stderr from the given descriptors
// and no other descriptor open, in a process group of its own (one kill reaches everything
// the driver started), with SIGPIPE at its default and no signal blocked: the runner's
// libraries may ignore SIGPIPE (httplib does, process-wide), children inherit ignored
// dispositions across exec, and a client that would die of SIGPIPE must die of it here too.
// posix_spawn, not a fork: docs/design-decisions.md, "Process supervision".
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

// The program to exec: argv[0] as a path, or looked up in PATH when it has no slash. Checked
// before anything is started, so that the message names the program and why.
std::filesystem::path resolve_program(const std::string& name) {
  std::filesystem::path program = name;
  if (name.find('/') == std::string::npos) {
    program = boost::process::v2::environment::find_executable(name);
    if (program.empty()) throw std::runtime_error("'" + name + "' is not found in PATH");
  }
  if (::access(program.c_str(), X_OK) != 0)
    throw std::runtime_error("'" + program.string() + "': " + std::strerror(errno));
  return program;
}

int wait_for_exit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// The process groups being waited for, so that an interrupted run can kill them all.
std::mutex live_groups_mutex;
std::set<pid_t> live_groups;
// Set by kill_all_children(): a child started later, by a thread that had not yet seen the
// run end, is killed as soon as it is registered.
bool all_killed = false;

// Registers `child`'s group, or takes it out again once it is over.
void set_registered(process_detail::Child& child, bool registered) {
  const std::lock_guard lock(live_groups_mutex);
  if (registered) {
    live_groups.insert(child.pid);
    if (all_killed) ::kill(-child.pid, SIGKILL);
  } else if (child.registered) {
    live_groups.erase(child.pid);
  }
  child.registered = registered;
}

}  // namespace

namespace process_detail {

Fd open_pidfd(pid_t pid) { return Fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))); }

void read_some(Fd& fd, std::string& into) {
  std::array<char, 65536> chunk;
  ssize_t n = 0;
  while ((n = ::read(fd.get(), chunk.data(), chunk.size())) < 0 && errno == EINTR) {
  }
  if (n > 0) {
    into.append(chunk.data(), static_cast<std::size_t>(n));
  } else if (n == 0 || errno != EAGAIN) {
    fd = Fd();
  }
}

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

ChildOutcome ended_with(int status) {
  ChildOutcome outcome;
  if (WIFSIGNALED(status)) {
    outcome.kind = ChildOutcome::Kind::kSignaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.exit_code = WEXITSTATUS(status);
  }
  return outcome;
}

ChildOutcome spawn_failure(std::string why) {
  ChildOutcome outcome;
  outcome.kind = ChildOutcome::Kind::kSpawnFailed;
  outcome.spawn_error = std::move(why);
  return outcome;
}

Child::~Child() {
  if (pid <= 0) return;
  ::kill(-pid, SIGKILL);  // it, or whatever it left in its group
  if (!wait_status) wait_status = wait_for_exit(pid);
  set_registered(*this, false);
}

void Child::start(std::vector<std::string> argv, const std::vector<std::string>& environment,
                  int in, const std::filesystem::path& stderr_file) {
  if (argv.empty()) throw std::runtime_error("empty command");
  const auto program = resolve_program(argv.front());
  argv.front() = program.string();
  // The child's ends, closed here once it has them.
  const Fd null_in = in < 0 ? open_for_child("/dev/null", O_RDONLY) : Fd();
  const Fd out_end = output_pipe(out);
  const Fd err_end = stderr_file.empty()
                         ? output_pipe(err)
                         : open_for_child(stderr_file, O_WRONLY | O_CREAT | O_TRUNC);
  pid =
      spawn(program, argv, environment, in < 0 ? null_in.get() : in, out_end.get(), err_end.get());
  set_registered(*this, true);
  pidfd = open_pidfd(pid);
}

bool Child::reap() {
  if (wait_status) return true;
  int status = 0;
  if (::waitpid(pid, &status, WNOHANG) != pid) return false;
  wait_status = status;
  pidfd = Fd();
  return true;
}

bool Child::exits_within(std::chrono::milliseconds bound) {
  if (!reap() && pidfd) {
    pollfd waiter{pidfd.get(), POLLIN, 0};
    ::poll(&waiter, 1, static_cast<int>(bound.count()));
  }
  return reap();
}

void Child::finish(std::chrono::milliseconds grace) {
  input = Fd();
  if (!exits_within(grace)) {
    ::kill(-pid, SIGKILL);
    wait_status = wait_for_exit(pid);
  }
  ::kill(-pid, SIGKILL);
  set_registered(*this, false);
}

bool watch(Child& child, const SpawnSpec& spec, Clock::time_point started,
           const std::function<Progress()>& take_output) {
  constexpr auto kNever = Clock::time_point::max();
  const auto limit = started + std::max(spec.deadline, spec.deadline_limit);
  auto deadline = started + spec.deadline;
  auto kill_at = kNever;
  auto drain_until = kNever;  // set at its exit or its answer
  bool timed_out = false;
  for (auto progress = Progress::kRunning;;) {
    const auto now = Clock::now();
    if (progress == Progress::kDone || now >= drain_until ||
        (child.wait_status && !child.out && !child.err))
      return timed_out;
    const bool running = !child.wait_status && progress == Progress::kRunning;
    if (running && !timed_out && now >= deadline) {
      if (spec.extend_while && now + spec.kill_grace <= limit && spec.extend_while()) {
        deadline = now + spec.kill_grace;
      } else {
        timed_out = true;
        ::kill(-child.pid, SIGTERM);
        kill_at = now + spec.kill_grace;
      }
    }
    if (running && now >= kill_at) {
      ::kill(-child.pid, SIGKILL);
      kill_at = kNever;
    }
    // At most 100 ms, or until the next thing due, for output or its exit (a pidfd).
    auto wake = std::min(now + std::chrono::milliseconds(100), drain_until);
    if (running) wake = std::min(wake, timed_out ? kill_at : deadline);
    std::array<pollfd, 3> fds{{{child.out.get(), POLLIN, 0},
                               {child.err.get(), POLLIN, 0},
                               {child.pidfd.get(), POLLIN, 0}}};
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(wake - now);
    ::poll(fds.data(), fds.size(), static_cast<int>(std::max<std::int64_t>(0, wait.count())));
    if (child.out) read_some(child.out, child.out_text);
    if (child.err) read_some(child.err, child.err_text);
    progress = take_output();
    child.reap();
    if ((progress != Progress::kRunning || child.wait_status) && drain_until == kNever)
      drain_until = Clock::now() + spec.output_drain;
  }
}

}  // namespace process_detail

using process_detail::child_environment;
using process_detail::ended_with;
using process_detail::Progress;

ChildOutcome run_child(const SpawnSpec& spec) {
  const auto started = Clock::now();
  CappedFile out(spec.stdout_file, spec.capture_cap);
  CappedFile err(spec.stderr_file, spec.capture_cap);
  process_detail::Child child;
  try {
    child.start(spec.argv, child_environment(spec.extra_env));
  } catch (const std::exception& e) {
    return process_detail::spawn_failure(e.what());
  }
  const bool timed_out = process_detail::watch(child, spec, started, [&] {
    out.write(child.out_text);
    err.write(child.err_text);
    child.out_text.clear();
    child.err_text.clear();
    return Progress::kRunning;
  });
  ChildOutcome outcome;
  if (timed_out) {
    outcome.kind = ChildOutcome::Kind::kTimedOut;
  } else {
    outcome = ended_with(*child.wait_status);
  }
  // No run leaves a process behind, even one still holding its pipes after the drain.
  if (::kill(-child.pid, 0) == 0) {
    ::kill(-child.pid, SIGKILL);
    outcome.group_killed_after_exit = true;
  }
  outcome.stdout_bytes = out.bytes();
  outcome.stderr_bytes = err.bytes();
  outcome.wall = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  return outcome;
}

struct BackgroundProcess::State {
  process_detail::Child child;
  bool stdout_ended = false;
  std::optional<std::string> stopped;  // stop()'s answer
};

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv,
                                     const std::filesystem::path& stderr_file)
    : state_(std::make_unique<State>()) {
  try {
    state_->child.start(argv, child_environment({}), -1, stderr_file);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot start " + (argv.empty() ? "''" : argv[0]) + ": " + e.what());
  }
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
  std::string& text = s.child.out_text;
  const auto until = Clock::now() + timeout;
  for (bool read = false;; read = true) {
    const auto nl = text.find('\n');
    if (nl != std::string::npos) {
      std::string line = text.substr(0, nl);
      text.erase(0, nl + 1);
      return line;
    }
    s.stdout_ended = s.stdout_ended || !s.child.out || (read && text.size() > 65536);
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    if (s.stdout_ended || left.count() <= 0) return std::nullopt;
    pollfd ready{s.child.out.get(), POLLIN, 0};
    ::poll(&ready, 1, static_cast<int>(left.count()));
    process_detail::read_some(s.child.out, text);
  }
}

void BackgroundProcess::signal_group(int signal) {
  if (!state_->child.wait_status) ::kill(-state_->child.pid, signal);
}

std::optional<ChildOutcome> BackgroundProcess::wait(std::chrono::milliseconds timeout) {
  if (!state_->child.exits_within(timeout)) return std::nullopt;
  return ended_with(*state_->child.wait_status);
}

std::string BackgroundProcess::stop(std::chrono::milliseconds grace) {
  auto& s = *state_;
  if (!s.stopped) {
    if (!s.child.wait_status) ::kill(-s.child.pid, SIGTERM);
    s.child.finish(grace);
    s.child.out = Fd();
    s.stopped = describe(ended_with(*s.child.wait_status));
  }
  return *s.stopped;
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
