// What child_process.cpp and driver_session.cpp share: starting a program in a process group
// of its own and registering that group, so that an interrupted run can kill it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mcpping {

struct ChildOutcome;

namespace process_detail {

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
