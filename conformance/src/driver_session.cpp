#include "conformance/driver_session.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <system_error>
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

// The per-case variables are the request's, never inherited from the runner's environment.
const std::vector<std::string> kCaseVariables = {
    "MCP_CONFORMANCE_SCENARIO", "MCP_CONFORMANCE_TRANSPORT", "MCP_CONFORMANCE_PROTOCOL_VERSION",
    "MCP_CONFORMANCE_CONTEXT"};

// Writes all of `request` unless the other end is gone (its end is then read as any crash is).
void send_request_line(int fd, const std::string& request) {
  for (std::size_t done = 0; done < request.size();) {
    const ssize_t n = ::send(fd, request.data() + done, request.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    done += static_cast<std::size_t>(n);
  }
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
using process_detail::Progress;

struct DriverSession::Process : process_detail::Child {
  bool hello_seen = false;
};

DriverSession::DriverSession(std::vector<std::string> driver_argv, fs::path log_dir)
    : driver_argv_(std::move(driver_argv)), log_dir_(std::move(log_dir)) {}

DriverSession::~DriverSession() {
  if (process_) process_->finish(std::chrono::milliseconds(1000));
}

void DriverSession::retire() { process_.reset(); }

// One case in the session's process: its stdout up to the case's end line and its stderr up
// to the case's marker, each into the case's own file, within the case's deadline.
class DriverSession::CaseReader {
 public:
  CaseReader(Process& p, const SpawnSpec& spec, unsigned long number)
      : p_(p),
        spec_(spec),
        number_(number),
        out_(spec.stdout_file, spec.capture_cap),
        err_(spec.stderr_file, spec.capture_cap),
        marker_("mcp-conformance: end of case " + std::to_string(number) + "\n") {}

  // Reads until both end markers came, or the process ended and its pipes closed, or the
  // drain after either ran out. Returns how the case ended: as the driver reports it, else as
  // its process did.
  ChildOutcome run(Clock::time_point started) {
    const bool timed_out = process_detail::watch(p_, spec_, started, [this] {
      take_stdout();
      take_stderr();
      if (!end_line_) return Progress::kRunning;
      return marker_seen_ ? Progress::kDone : Progress::kAnswered;
    });
    ChildOutcome outcome;
    if (end_line_) {
      if (end_line_->contains("signal") && (*end_line_)["signal"].is_number_integer()) {
        outcome.kind = ChildOutcome::Kind::kSignaled;
        outcome.signal = (*end_line_)["signal"].get<int>();
      } else {
        const json status = end_line_->value("exit", json(0));
        outcome.exit_code = status.is_number_integer() ? status.get<int>() : 1;
      }
    } else if (timed_out) {
      outcome.kind = ChildOutcome::Kind::kTimedOut;
    } else if (p_.wait_status) {
      outcome = process_detail::ended_with(*p_.wait_status);
    }
    // What it wrote of a last line without a newline is kept, as a process of its own's is.
    if (!end_line_) out_.write(p_.out_text);
    if (!marker_seen_) err_.write(p_.err_text);
    outcome.stdout_bytes = out_.bytes();
    outcome.stderr_bytes = err_.bytes();
    outcome.wall = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
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
  // Whole stdout lines: the session's hello is dropped, the case's end line kept aside, the
  // rest is the case's stdout.
  void take_stdout() {
    for (std::size_t nl; !end_line_ && (nl = p_.out_text.find('\n')) != std::string::npos;) {
      const std::string line = p_.out_text.substr(0, nl);
      p_.out_text.erase(0, nl + 1);
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
    const auto at = p_.err_text.find(marker_);
    marker_seen_ = at != std::string::npos;
    const std::size_t taken =
        marker_seen_ ? at : p_.err_text.size() - std::min(p_.err_text.size(), marker_.size() - 1);
    err_.write(std::string_view(p_.err_text).substr(0, taken));
    p_.err_text.erase(0, marker_seen_ ? at + marker_.size() : taken);
  }

  Process& p_;
  const SpawnSpec& spec_;
  const unsigned long number_;
  CappedFile out_;
  CappedFile err_;
  const std::string marker_;  // what ends the case on its stderr
  std::optional<json> end_line_;
  bool marker_seen_ = false;
};

ChildOutcome DriverSession::run_case(const DriverInvocation& invocation, const SpawnSpec& spec) {
  const auto started = Clock::now();
  const unsigned long number = ++cases_;
  const std::string request = session_request(number, invocation, driver_argv_.size());
  // A process that died, or wrote on stdout between cases, is not given another case; what it
  // wrote on stderr between cases is kept in `log_dir`.
  if (process_) {
    if (process_->out) process_detail::read_some(process_->out, process_->out_text);
    if (!process_->out || process_->reap() || !process_->out_text.empty()) process_.reset();
  }
  if (process_ && !process_->err_text.empty()) {
    std::ofstream(log_dir_ / ("driver-session-" + std::to_string(process_->pid) + ".stderr"),
                  std::ios::binary | std::ios::app)
        << process_->err_text;
    process_->err_text.clear();
  }
  try {
    if (!process_) {
      // Its stdin is a socket: a write to a dead driver is EPIPE, no signal.
      int input[2] = {-1, -1};
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) != 0)
        throw std::system_error(errno, std::generic_category(), "pipes for the driver");
      const Fd child_end(input[1]);
      auto process = std::make_unique<Process>();
      process->input = Fd(input[0]);
      process->start(driver_argv_,
                     process_detail::child_environment({{kSessionVariable, "1"}}, kCaseVariables),
                     child_end.get());
      process_ = std::move(process);
    }
  } catch (const std::exception& e) {
    return process_detail::spawn_failure(e.what());
  }
  CaseReader reader(*process_, spec, number);
  send_request_line(process_->input.get(), request);
  ChildOutcome outcome = reader.run(started);
  if (!reader.reusable(outcome)) {
    process_->finish(spec.kill_grace);
    process_.reset();
  }
  return outcome;
}

}  // namespace mcpping
