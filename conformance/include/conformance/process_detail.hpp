// What child_process.cpp, driver_session.cpp and mock_watch.cpp share: starting a program in a
// process group of its own and registering that group, so that an interrupted run can kill it;
// watching it with poll(); descriptors and capped output files.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcpping {

struct ChildOutcome;
struct SpawnSpec;

namespace process_detail {

// A file descriptor, closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// A pidfd for `pid`: readable once the process has exited. Empty when the process is gone.
Fd open_pidfd(pid_t pid);

// Takes what one read() of the non-blocking `fd` gives; closes `fd` at its end.
void read_some(Fd& fd, std::string& into);

// A file that keeps at most `cap` bytes of what is written to it, counts the rest, and says at
// its end how much was cut.
class CappedFile {
 public:
  CappedFile(const std::filesystem::path& file, std::size_t cap)
      : out_(file, std::ios::binary | std::ios::trunc), cap_(cap) {}
  ~CappedFile() {
    if (bytes_ > cap_) {
      out_ << "\n[mcp-ping-conformance: output cut at " << cap_ << " of " << bytes_ << " bytes]\n";
    }
  }
  CappedFile(const CappedFile&) = delete;
  CappedFile& operator=(const CappedFile&) = delete;

  void write(std::string_view text) {
    if (bytes_ < cap_)
      out_.write(text.data(), static_cast<std::streamsize>(std::min(text.size(), cap_ - bytes_)));
    bytes_ += text.size();
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::ofstream out_;
  std::size_t cap_;
  std::size_t bytes_ = 0;
};

// Our environment with `extra` added (or replacing), as NAME=value entries; `unset` names
// are left out.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& extra,
                                           const std::vector<std::string>& unset = {});

// How a child ended, from its wait status: an exit code or the signal that killed it.
ChildOutcome ended_with(int status);

ChildOutcome spawn_failure(std::string why);

// A program started in a process group of its own (its pid names the group), registered with
// kill_all_children() while it runs. Destroying it kills its group and reaps it.
struct Child {
  pid_t pid = -1;
  bool registered = false;  // its group, with kill_all_children(): from start() to finish()
  Fd input;                 // the runner's end of its stdin, when it has one
  Fd out;                   // the runner's end of its stdout pipe (non-blocking), until that closes
  Fd err;                   // the same for stderr, when piped
  Fd pidfd;                 // until it is reaped
  std::string out_text;     // read, not yet taken
  std::string err_text;
  std::optional<int> wait_status;  // it has exited (and was reaped)

  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  // Starts `argv` (argv[0] as a path, or looked up in PATH) with stdin from `in` (-1:
  // /dev/null), stdout piped to `out`, and stderr into `stderr_file` or, without one, piped to
  // `err`; no other descriptor open, SIGPIPE at its default and no signal blocked. Throws
  // std::runtime_error or std::system_error with why it cannot.
  void start(std::vector<std::string> argv, const std::vector<std::string>& environment,
             int in = -1, const std::filesystem::path& stderr_file = {});
  // Reaps it when it has exited: true then.
  bool reap();
  // Up to `bound` for it to exit: true once it has (and was reaped).
  bool exits_within(std::chrono::milliseconds bound);
  // Up to `grace` for it to end by itself (a session's ends at the end of its stdin), then
  // SIGKILL; then SIGKILL to what it left in its group, which is no longer registered.
  void finish(std::chrono::milliseconds grace);
};

// What a watched child's output has come to.
enum class Progress {
  kRunning,
  kAnswered,  // it said its run is over (a session's end line): no deadline, a bounded drain
  kDone,      // nothing more to wait for
};

// Watches `child` from `started`: reads its output as it comes and calls `take_output` after
// each read; enforces spec.deadline (moved on by spec.kill_grace while spec.extend_while()
// says so, never past spec.deadline_limit; then SIGTERM to its group and SIGKILL after the
// grace); reaps it. Returns once it has exited and closed its pipes, or spec.output_drain
// after its exit or its answer, or at kDone; true when the deadline ran out.
bool watch(Child& child, const SpawnSpec& spec, std::chrono::steady_clock::time_point started,
           const std::function<Progress()>& take_output);

}  // namespace process_detail
}  // namespace mcpping
