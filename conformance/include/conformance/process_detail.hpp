// What child_process.cpp, driver_session.cpp and mock_watch.cpp share: starting a program in a
// process group of its own and registering that group, so that an interrupted run can kill it;
// descriptors and capped output files.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcpping {

struct ChildOutcome;

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

// Starts `program` (argv[0] names it) with stdin, stdout and stderr from the given
// descriptors and no other descriptor open, in a process group of its own, with SIGPIPE at
// its default and no signal blocked. Throws std::system_error when it cannot.
pid_t spawn(const std::filesystem::path& program, const std::vector<std::string>& argv,
            const std::vector<std::string>& environment, int in, int out, int err);

// Our environment with `extra` added (or replacing), as NAME=value entries; `unset` names
// are left out.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& extra,
                                           const std::vector<std::string>& unset = {});

// The program to exec: argv[0] as a path, or looked up in PATH when it has no slash; nullopt
// and `why` when there is none to run.
std::optional<std::filesystem::path> resolve_program(const std::string& name, std::string& why);

// How a child ended, from its wait status: an exit code or the signal that killed it.
void record_wait_status(int status, ChildOutcome& outcome);

}  // namespace process_detail

namespace process_groups {

// A process group being waited for: kill_all_children() kills it while it is registered,
// and one registered after that call is killed at once.
class LiveGroup {
 public:
  explicit LiveGroup(pid_t group);
  ~LiveGroup();
  LiveGroup(const LiveGroup&) = delete;
  LiveGroup& operator=(const LiveGroup&) = delete;

 private:
  pid_t group_;
};

}  // namespace process_groups
}  // namespace mcpping
