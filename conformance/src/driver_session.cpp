#include "conformance/driver_session.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "conformance/process_detail.hpp"

namespace mcpping {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

bool offers_sessions(const std::string& stdout_text) {
  const std::string first = stdout_text.substr(0, stdout_text.find('\n'));
  const json hello = json::parse(first, nullptr, false);
  return hello.is_object() && hello.value("driver_sessions", json()) == json(1);
}

namespace {

// What ends a case on the driver's stderr.
std::string session_stderr_marker(unsigned long case_number) {
  return "mcp-conformance: end of case " + std::to_string(case_number) + "\n";
}

// The line sent on the session's stdin for one case.
std::string session_request(unsigned long case_number, const DriverInvocation& invocation,
                            std::size_t driver_words) {
  json args = json::array();
  for (std::size_t i = driver_words; i < invocation.argv.size(); ++i)
    args.push_back(invocation.argv[i]);
  return json{{"case", case_number}, {"env", invocation.env}, {"args", args}}.dump(
             -1, ' ', false, json::error_handler_t::replace) +
         "\n";
}

}  // namespace

using process_detail::CappedFile;
using process_detail::Fd;

namespace {

// Reads what is there without blocking: false once the other end is closed.
bool read_available(int fd, std::string& into) {
  std::array<char, 65536> chunk{};
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n > 0) {
      into.append(chunk.data(), static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

}  // namespace

struct DriverSession::Process {
  pid_t pid = -1;
  std::optional<process_groups::LiveGroup> registered;
  Fd input;  // our end of its stdin (a socket: a write to a dead driver is EPIPE, no signal)
  Fd out;
  Fd err;
  Fd pidfd;
  std::string out_buffer;  // stdout read but not yet a whole line
  std::string err_buffer;  // stderr read but not yet given to a case
  bool hello_seen = false;
  std::optional<int> wait_status;  // it has exited (and was reaped)

  ~Process() {
    if (pid <= 0) return;
    ::kill(-pid, SIGKILL);  // it, or whatever it left in its group
    if (!wait_status) wait_for_exit();
  }

  // Reaps it when it has exited: true then.
  bool reap() {
    if (wait_status) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) != pid) return false;
    wait_status = status;
    pidfd = Fd();
    return true;
  }

  void wait_for_exit() {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    wait_status = status;
  }

  // Up to `grace` for it to end by itself (it ends at the end of its stdin), then SIGKILL.
  void finish(std::chrono::milliseconds grace) {
    input = Fd();
    if (!reap() && pidfd) {
      pollfd waiter{pidfd.get(), POLLIN, 0};
      ::poll(&waiter, 1, static_cast<int>(grace.count()));
    }
    if (!reap()) {
      ::kill(-pid, SIGKILL);
      wait_for_exit();
    }
    ::kill(-pid, SIGKILL);
  }
};

DriverSession::DriverSession(std::vector<std::string> driver_argv, fs::path log_dir)
    : driver_argv_(std::move(driver_argv)), log_dir_(std::move(log_dir)) {}

DriverSession::~DriverSession() {
  if (process_) process_->finish(std::chrono::milliseconds(1000));
}

void DriverSession::retire() { process_.reset(); }

namespace {

// The per-case variables are the request's, never inherited from the runner's environment.
const std::vector<std::string> kCaseVariables = {
    "MCP_CONFORMANCE_SCENARIO", "MCP_CONFORMANCE_TRANSPORT", "MCP_CONFORMANCE_PROTOCOL_VERSION",
    "MCP_CONFORMANCE_CONTEXT"};

}  // namespace

void DriverSession::drop_untrusted_process() {
  // A process that died, or wrote on stdout between cases, is not given another case.
  if (process_) {
    if (!read_available(process_->out.get(), process_->out_buffer) || process_->reap() ||
        !process_->out_buffer.empty())
      process_.reset();
  }
  if (process_ && !process_->err_buffer.empty()) {
    std::ofstream(log_dir_ / ("driver-session-" + std::to_string(process_->pid) + ".stderr"),
                  std::ios::binary | std::ios::app)
        << process_->err_buffer;
    process_->err_buffer.clear();
  }
}

std::optional<std::string> DriverSession::start_process() {
  std::string why;
  const auto program = process_detail::resolve_program(driver_argv_.front(), why);
  if (!program) return why;
  auto process = std::make_unique<Process>();
  int input[2] = {-1, -1};
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  const bool piped = ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) == 0 &&
                     ::pipe2(out, O_CLOEXEC) == 0 && ::pipe2(err, O_CLOEXEC) == 0;
  const int error = errno;
  // Closed on every path; the runner's ends move into the process.
  Fd ends[] = {Fd(input[0]), Fd(input[1]), Fd(out[0]), Fd(out[1]), Fd(err[0]), Fd(err[1])};
  if (!piped) return "pipes for the driver: " + std::string(std::strerror(error));
  try {
    std::vector<std::string> argv = driver_argv_;
    argv.front() = program->string();
    process->pid = process_detail::spawn(
        *program, argv,
        process_detail::child_environment({{kSessionVariable, "1"}}, kCaseVariables), input[1],
        out[1], err[1]);
  } catch (const std::exception& e) {
    return e.what();
  }
  process->registered.emplace(process->pid);
  process->input = std::move(ends[0]);
  process->out = std::move(ends[2]);
  process->err = std::move(ends[4]);
  ::fcntl(process->out.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(process->err.get(), F_SETFL, O_NONBLOCK);
  process->pidfd = process_detail::open_pidfd(process->pid);
  process_ = std::move(process);
  return std::nullopt;
}

// One case in the session's process: its stdout up to the case's end line and its stderr up
// to the case's marker, each into the case's own file, within the case's deadline.
class DriverSession::CaseReader {
 public:
  CaseReader(Process& p, const SpawnSpec& spec, unsigned long number, Clock::time_point started)
      : p_(p),
        spec_(spec),
        number_(number),
        started_(started),
        out_(spec.stdout_file, spec.capture_cap),
        err_(spec.stderr_file, spec.capture_cap),
        marker_(session_stderr_marker(number)),
        limit_(started + std::max(spec.deadline, spec.deadline_limit)),
        deadline_at_(started + spec.deadline) {}

  // Reads until both end markers came, or the process ended and its pipes closed, or the
  // drain after either ran out.
  void run() {
    for (;;) {
      const auto now = Clock::now();
      if (over(now)) break;
      if (!p_.wait_status && !end_line_) enforce_deadline(now);
      wait_and_read(now);
      if (end_line_ && drain_until_ == kNever) drain_until_ = Clock::now() + spec_.output_drain;
      if (!p_.wait_status) p_.reap();
      if (p_.wait_status && !end_line_ && drain_until_ == kNever)
        drain_until_ = Clock::now() + spec_.output_drain;
    }
  }

  // How the case ended: as the driver reports it, else as its process did.
  ChildOutcome outcome() {
    ChildOutcome outcome;
    outcome.wall = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_);
    if (end_line_) {
      if (end_line_->contains("signal") && (*end_line_)["signal"].is_number_integer()) {
        outcome.kind = ChildOutcome::Kind::kSignaled;
        outcome.signal = (*end_line_)["signal"].get<int>();
      } else {
        outcome.kind = ChildOutcome::Kind::kExited;
        const json status = end_line_->value("exit", json(0));
        outcome.exit_code = status.is_number_integer() ? status.get<int>() : 1;
      }
    } else if (timed_out_) {
      outcome.kind = ChildOutcome::Kind::kTimedOut;
    } else if (p_.wait_status) {
      process_detail::record_wait_status(*p_.wait_status, outcome);
    }
    // What it wrote of a last line without a newline is kept, as a process of its own's is.
    if (!end_line_) out_.write(p_.out_buffer);
    if (!marker_seen_) err_.write(p_.err_buffer);
    outcome.stdout_bytes = out_.bytes();
    outcome.stderr_bytes = err_.bytes();
    return outcome;
  }

  // The process takes the next case only after a case it ran to its end with 0 or 127 (a
  // refusal before any op) and both end markers: after anything else (a crash it reported, a
  // crash of its own, the deadline, a missing marker) nothing of it is trusted.
  bool reusable(const ChildOutcome& outcome) const {
    return end_line_ && marker_seen_ && outcome.kind == ChildOutcome::Kind::kExited &&
           (outcome.exit_code == 0 || outcome.exit_code == kDriverUnsupportedExit);
  }

 private:
  static constexpr auto kNever = Clock::time_point::max();  // a time not set

  bool over(Clock::time_point now) const {
    return (end_line_ && marker_seen_) || now >= drain_until_ ||
           (p_.wait_status && !out_open_ && !err_open_);
  }

  // SIGTERM to the group at the deadline (moved on while spec.extend_while() says so), SIGKILL
  // after the grace.
  void enforce_deadline(Clock::time_point now) {
    if (!timed_out_ && now >= deadline_at_) {
      if (spec_.extend_while && now + spec_.kill_grace <= limit_ && spec_.extend_while()) {
        deadline_at_ = now + spec_.kill_grace;
      } else {
        timed_out_ = true;
        ::kill(-p_.pid, SIGTERM);
        kill_at_ = now + spec_.kill_grace;
      }
    }
    if (now >= kill_at_) {
      ::kill(-p_.pid, SIGKILL);
      kill_at_ = kNever;
    }
  }

  // Waits (at most 100 ms, or until the next time something is due) for output or the
  // process's end, and takes in what came.
  void wait_and_read(Clock::time_point now) {
    std::vector<pollfd> fds;
    if (out_open_) fds.push_back({p_.out.get(), POLLIN, 0});
    if (err_open_) fds.push_back({p_.err.get(), POLLIN, 0});
    if (!p_.wait_status && p_.pidfd) fds.push_back({p_.pidfd.get(), POLLIN, 0});
    auto wake = Clock::now() + std::chrono::milliseconds(100);
    if (!timed_out_ && !end_line_) wake = std::min(wake, deadline_at_);
    wake = std::min({wake, kill_at_, drain_until_});
    const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wake - now);
    ::poll(fds.data(), fds.size(), static_cast<int>(std::max<std::int64_t>(0, wait_ms.count())));
    if (out_open_) {
      out_open_ = read_available(p_.out.get(), p_.out_buffer);
      take_stdout();
    }
    if (err_open_) {
      err_open_ = read_available(p_.err.get(), p_.err_buffer);
      take_stderr();
    }
  }

  // Whole stdout lines: the session's hello is dropped, the case's end line kept aside, the
  // rest is the case's stdout.
  void take_stdout() {
    for (std::size_t nl; !end_line_ && (nl = p_.out_buffer.find('\n')) != std::string::npos;) {
      const std::string line = p_.out_buffer.substr(0, nl);
      p_.out_buffer.erase(0, nl + 1);
      if (!p_.hello_seen && line == kSessionHello) {
        p_.hello_seen = true;
        continue;
      }
      p_.hello_seen = true;
      if (line.rfind(R"({"case_end":)", 0) == 0) {
        const json parsed = json::parse(line, nullptr, false);
        if (parsed.is_object() && parsed.value("case_end", json()) == json(number_)) {
          end_line_ = parsed;
          continue;
        }
      }
      out_.write(line);
      out_.write("\n");
    }
  }

  // Stderr up to the case's marker; what could be the start of the marker is held back.
  void take_stderr() {
    if (marker_seen_) return;
    const auto at = p_.err_buffer.find(marker_);
    if (at != std::string::npos) {
      err_.write(std::string_view(p_.err_buffer).substr(0, at));
      p_.err_buffer.erase(0, at + marker_.size());
      marker_seen_ = true;
      return;
    }
    const std::size_t keep = std::min(p_.err_buffer.size(), marker_.size() - 1);
    err_.write(std::string_view(p_.err_buffer).substr(0, p_.err_buffer.size() - keep));
    p_.err_buffer.erase(0, p_.err_buffer.size() - keep);
  }

  Process& p_;
  const SpawnSpec& spec_;
  const unsigned long number_;
  const Clock::time_point started_;
  CappedFile out_;
  CappedFile err_;
  const std::string marker_;
  const Clock::time_point limit_;
  Clock::time_point deadline_at_;
  Clock::time_point kill_at_ = kNever;
  Clock::time_point drain_until_ = kNever;  // set at its end line or its exit
  std::optional<json> end_line_;
  bool marker_seen_ = false;
  bool out_open_ = true;
  bool err_open_ = true;
  bool timed_out_ = false;
};

namespace {

// Writes all of `request` unless the other end is gone (its end is then read as any crash is).
void send_request_line(int fd, const std::string& request) {
  for (std::size_t done = 0; done < request.size();) {
    const ssize_t n = ::send(fd, request.data() + done, request.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

ChildOutcome DriverSession::run_case(const DriverInvocation& invocation, const SpawnSpec& spec) {
  const auto started = Clock::now();
  const unsigned long number = ++cases_;
  const std::string request = session_request(number, invocation, driver_argv_.size());
  drop_untrusted_process();
  if (!process_) {
    if (auto why = start_process()) {
      ChildOutcome outcome;
      outcome.kind = ChildOutcome::Kind::kSpawnFailed;
      outcome.spawn_error = *why;
      return outcome;
    }
  }
  CaseReader reader(*process_, spec, number, started);
  send_request_line(process_->input.get(), request);
  reader.run();
  auto outcome = reader.outcome();
  if (!reader.reusable(outcome)) {
    process_->finish(spec.kill_grace);
    process_.reset();
  }
  return outcome;
}

}  // namespace mcpping
