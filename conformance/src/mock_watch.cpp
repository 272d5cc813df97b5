#include "conformance/mock_watch.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <fstream>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

#include "conformance/process_detail.hpp"
#include "core/files.hpp"

namespace mcpping {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using process_detail::Fd;
using process_detail::open_pidfd;

namespace {

sigset_t shutdown_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

Fd checked(int fd, const char* what) {
  if (fd < 0) throw std::system_error(errno, std::generic_category(), what);
  return Fd(fd);
}

// Whether the process behind a pidfd has exited, waiting at most `ms`.
bool exited(const Fd& pidfd, int ms) {
  pollfd waiter{pidfd.get(), POLLIN, 0};
  return ::poll(&waiter, 1, ms) != 0;
}

// Reads transcript.jsonl as it grows and says when its `end` record has come. A mock server
// started again by the client truncates the file: reading starts over.
class TranscriptTail {
 public:
  explicit TranscriptTail(fs::path file) : file_(std::move(file)) {}

  bool saw_end() {
    std::ifstream in(file_, std::ios::binary);
    if (!in) return false;
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::size_t>(in.tellg());
    if (size < offset_) {
      offset_ = 0;
      pending_.clear();
    }
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string added(size - offset_, '\0');
    in.read(added.data(), static_cast<std::streamsize>(added.size()));
    added.resize(static_cast<std::size_t>(in.gcount()));
    offset_ += added.size();
    pending_ += added;
    std::size_t begin = 0;
    for (std::size_t nl; (nl = pending_.find('\n', begin)) != std::string::npos; begin = nl + 1) {
      const std::string_view line(pending_.data() + begin, nl - begin);
      if (line.find("\"end\"") == std::string_view::npos) continue;  // most lines: no parse
      const auto record = nlohmann::json::parse(line, nullptr, false);
      if (record.is_object() && record.value("kind", "") == "end") return true;
    }
    pending_.erase(0, begin);
    return false;
  }

 private:
  fs::path file_;
  std::size_t offset_ = 0;
  std::string pending_;  // a line not yet complete
};

// The pid `mock.pid` names once the mock server has written it whole ("<pid>\n").
std::optional<pid_t> pid_in(const fs::path& pid_file) {
  const std::string text = read_file_or_empty(pid_file);
  if (text.empty() || text.back() != '\n') return std::nullopt;
  try {
    const long pid = std::stol(text);
    return pid > 1 ? std::optional<pid_t>(static_cast<pid_t>(pid)) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<pid_t> running_mock_pid(const fs::path& pid_file) {
  const auto pid = pid_in(pid_file);
  if (!pid) return std::nullopt;
  const std::string cmdline = read_file_or_empty("/proc/" + std::to_string(*pid) + "/cmdline");
  if (cmdline.find("mcp-mock-") == std::string::npos ||
      cmdline.find(pid_file.parent_path().string()) == std::string::npos) {
    return std::nullopt;
  }
  return pid;
}

void stop_mock_server(const fs::path& pid_file, std::chrono::milliseconds grace, MockStop how) {
  const auto pid = running_mock_pid(pid_file);
  if (!pid) return;
  const Fd pidfd = open_pidfd(*pid);
  if (!pidfd) return;
  if (how == MockStop::kTerminateFirst) ::kill(*pid, SIGTERM);
  if (!exited(pidfd, static_cast<int>(grace.count()))) {
    ::kill(*pid, SIGKILL);
    exited(pidfd, 1000);
  }
}

sigset_t block_shutdown_signals() {
  const sigset_t set = shutdown_signals();
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

ScriptEndWait wait_for_script_end(const fs::path& evidence_dir,
                                  std::chrono::milliseconds start_within,
                                  std::chrono::milliseconds run_within) {
  // The watch comes first, so that nothing written after the first look goes unseen.
  const Fd inotify = checked(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK), "inotify_init1");
  if (::inotify_add_watch(inotify.get(), evidence_dir.c_str(),
                          IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
    throw std::system_error(errno, std::generic_category(),
                            "cannot watch " + evidence_dir.string());
  }
  const sigset_t signals = shutdown_signals();
  const Fd signal_fd = checked(::signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK), "signalfd");
  const fs::path pid_file = evidence_dir / "mock.pid";
  TranscriptTail transcript(evidence_dir / "transcript.jsonl");
  Fd mock;  // a pidfd, once the mock server has started
  bool started = false;
  auto bound = Clock::now() + start_within;

  for (;;) {
    if (!started) {
      if (const auto pid = pid_in(pid_file)) {
        started = true;
        bound = Clock::now() + run_within;
        // Gone already, or the number reused: it exited; its transcript says how.
        if (running_mock_pid(pid_file) == pid) mock = open_pidfd(*pid);
        if (!mock) return {transcript.saw_end() ? ScriptEnd::kEnded : ScriptEnd::kServerExited};
      }
    }
    if (transcript.saw_end()) return {ScriptEnd::kEnded};

    const auto left = std::chrono::ceil<std::chrono::milliseconds>(bound - Clock::now());
    if (left.count() <= 0) return {started ? ScriptEnd::kOverstayed : ScriptEnd::kNeverStarted};
    std::array<pollfd, 3> fds{{{inotify.get(), POLLIN, 0},
                               {signal_fd.get(), POLLIN, 0},
                               {mock ? mock.get() : -1, POLLIN, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) {
      throw std::system_error(errno, std::generic_category(), "poll");
    }
    if (fds[1].revents & POLLIN) {
      signalfd_siginfo info{};
      if (::read(signal_fd.get(), &info, sizeof info) == sizeof info) {
        return {ScriptEnd::kInterrupted, static_cast<int>(info.ssi_signo)};
      }
    }
    if (fds[0].revents & POLLIN) {
      std::array<char, 16384> events{};
      while (::read(inotify.get(), events.data(), events.size()) > 0) {
        // Which file changed does not matter: the loop looks at both again.
      }
    }
    if (fds[2].revents & POLLIN) {
      return {transcript.saw_end() ? ScriptEnd::kEnded : ScriptEnd::kServerExited};
    }
  }
}

}  // namespace mcpping
