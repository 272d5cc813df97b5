#include "mcp/stdio_transport.hpp"

#include "child_process.hpp"
#include "line_buffer.hpp"
#include "mcp/error.hpp"
#include "pipe_io.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace mcp {

using detail::ReadResult;
using nlohmann::json;

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::size_t kStderrLineCap = 64 * 1024;
constexpr std::size_t kLoggedPrefix = 200;

std::string excerpt(std::string_view text) {
  if (text.size() <= kLoggedPrefix) return std::string(text);
  return std::string(text.substr(0, kLoggedPrefix)) + "... (" + std::to_string(text.size()) +
         " bytes)";
}

}  // namespace

class StdioTransport::Impl {
 public:
  Impl(StdioServerParameters server, StdioTransportOptions options)
      : server_(std::move(server)), options_(std::move(options)) {
    if (!options_.logger) options_.logger = stderr_logger();
    if (!options_.stderr_sink) {
      options_.stderr_sink = [](std::string_view line) {
        std::string text = "[server stderr] ";
        text.append(line).push_back('\n');
        // Raw write, like the logger: one call per line, safe from any thread.
        std::string_view rest = text;
        while (!rest.empty()) {
          const ssize_t n = ::write(STDERR_FILENO, rest.data(), rest.size());
          if (n <= 0) return;
          rest.remove_prefix(static_cast<std::size_t>(n));
        }
      };
    }
  }

  ~Impl() {
    close();
    child_.reset();  // SIGKILLs and reaps a child that is somehow still there
  }

  void start(MessageHandler on_message, CloseHandler on_closed) {
    std::lock_guard close_lock(close_mutex_);
    if (started_ || closed_) throw Error(errc::invalid_state, "transport already started");
    on_message_ = std::move(on_message);
    on_closed_ = std::move(on_closed);
    try {
      stdin_ = std::make_unique<detail::Pipe>();
      stdout_ = std::make_unique<detail::Pipe>();
      stderr_ = std::make_unique<detail::Pipe>();
      wake_ = std::make_unique<detail::Pipe>();
    } catch (const std::system_error& e) {
      throw Error(errc::spawn_failed, std::string("could not create pipes: ") + e.what());
    }
    child_ = std::make_unique<detail::ChildProcess>(server_.command, server_.working_directory,
                                                    stdin_->read_end(), stdout_->write_end(),
                                                    stderr_->write_end(), [this] { wake(); });
    // Keep only our ends, so that EOF on stdout/stderr follows the server's exit.
    stdin_->close_read_end();
    stdout_->close_write_end();
    stderr_->close_write_end();
    stdin_open_ = true;
    started_ = true;
    log(LogLevel::info,
        "started server pid " + std::to_string(child_->pid()) + ": " + server_.command.front());
    stderr_thread_ = std::thread([this] { drain_stderr(); });
    reader_thread_ = std::thread([this] { read_stdout(); });
  }

  std::error_code send(const json& frame) {
    // Newline-delimited framing: dump() without indentation never emits a raw newline.
    std::string line = frame.dump(-1, ' ', false, json::error_handler_t::replace);
    line.push_back('\n');
    std::unique_lock lock(write_mutex_);
    write_done_.wait(lock, [this] { return !writing_; });
    if (!stdin_open_) return make_error_code(errc::connection_closed);
    writing_ = true;
    lock.unlock();
    const std::error_code error = detail::write_all_without_sigpipe(stdin_->write_end(), line);
    lock.lock();
    writing_ = false;
    write_done_.notify_all();
    return error;
  }

  void close() {
    std::lock_guard close_lock(close_mutex_);
    if (closed_) return;
    closed_ = true;
    if (!started_) return;

    // MCP lifecycle, stdio shutdown: close the server's input, wait, SIGTERM, wait, SIGKILL.
    // A writer blocked on a full stdin keeps writing_ set; then go straight to the signals,
    // which unblock it, and close stdin afterwards.
    bool stdin_closed = close_stdin(options_.stdin_close_grace);
    if (!stdin_closed || !child_->wait_for(options_.stdin_close_grace)) {
      log(LogLevel::info, "server did not exit after its stdin was closed; sending SIGTERM");
      child_->send_signal(SIGTERM);
      if (!child_->wait_for(options_.terminate_grace)) {
        log(LogLevel::warning, "server ignored SIGTERM; sending SIGKILL");
        child_->send_signal(SIGKILL);
        if (!child_->wait_for(options_.kill_grace)) {
          log(LogLevel::error, "server did not exit after SIGKILL");
        }
      }
    }
    if (!stdin_closed) close_stdin(options_.kill_grace);
    wake();  // stops the readers even if a grandchild still holds the server's stdout/stderr
    join(reader_thread_);
    join(stderr_thread_);
    if (auto status = child_->exit_status()) log(LogLevel::info, "server " + describe(*status));
  }

  int pid() const { return child_ ? child_->pid() : -1; }
  std::optional<ExitStatus> exit_status() const {
    return child_ ? child_->exit_status() : std::nullopt;
  }

 private:
  static std::string describe(const ExitStatus& status) {
    return status.signaled ? "killed by signal " + std::to_string(status.signal)
                           : "exited with code " + std::to_string(status.code);
  }

  static void join(std::thread& thread) {
    // close() from inside a handler runs on the reader thread; it cannot join itself.
    if (thread.joinable() && thread.get_id() != std::this_thread::get_id()) thread.join();
  }

  bool close_stdin(std::chrono::milliseconds wait) {
    std::unique_lock lock(write_mutex_);
    if (!write_done_.wait_for(lock, wait, [this] { return !writing_; })) return false;
    stdin_open_ = false;
    stdin_->close_write_end();
    return true;
  }

  void wake() {
    if (wake_signalled_.exchange(true)) return;
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_->write_end(), &byte, 1);
  }

  void log(LogLevel level, const std::string& message) { options_.logger(level, message); }

  void read_stdout() {
    detail::LineBuffer lines(options_.max_line_bytes, detail::LineBuffer::Overflow::drop);
    const auto on_line = [this](std::string_view line) { deliver(line); };
    const auto on_drop = [this](std::size_t length) {
      log(LogLevel::warning, "dropped a stdout line of " + std::to_string(length) +
                                 " bytes: longer than the " +
                                 std::to_string(options_.max_line_bytes) + "-byte limit");
    };
    std::string reason;
    std::vector<char> buffer(kReadChunk);
    for (;;) {
      std::size_t n = 0;
      std::error_code error;
      const ReadResult result = detail::read_or_wake(stdout_->read_end(), wake_->read_end(),
                                                     buffer.data(), buffer.size(), n, error);
      if (result == ReadResult::data) {
        lines.feed(std::string_view(buffer.data(), n), on_line, on_drop);
        continue;
      }
      if (result == ReadResult::end_of_file) reason = "server closed its stdout";
      if (result == ReadResult::woken) reason = closed_ ? "transport closed" : "server exited";
      if (result == ReadResult::error) reason = "reading server stdout failed: " + error.message();
      break;
    }
    lines.finish(on_line, on_drop);
    if (on_closed_) {
      try {
        on_closed_(reason);
      } catch (const std::exception& e) {
        log(LogLevel::error, std::string("close handler threw: ") + e.what());
      }
    }
  }

  void deliver(std::string_view line) {
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    json frame = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (frame.is_discarded()) {
      log(LogLevel::warning, "skipped a stdout line that is not JSON: " + excerpt(line));
      return;
    }
    // The reader must survive anything a handler does.
    try {
      on_message_(std::move(frame));
    } catch (const std::exception& e) {
      log(LogLevel::error, std::string("message handler threw: ") + e.what());
    }
  }

  void drain_stderr() {
    detail::LineBuffer lines(kStderrLineCap, detail::LineBuffer::Overflow::split);
    const auto on_line = [this](std::string_view line) {
      try {
        options_.stderr_sink(line);
      } catch (...) {
        // A failing sink must not stop the draining, or the server blocks on a full pipe.
      }
    };
    const auto on_drop = [](std::size_t) {};
    std::vector<char> buffer(kReadChunk);
    for (;;) {
      std::size_t n = 0;
      std::error_code error;
      if (detail::read_or_wake(stderr_->read_end(), wake_->read_end(), buffer.data(), buffer.size(),
                               n, error) != ReadResult::data) {
        break;
      }
      lines.feed(std::string_view(buffer.data(), n), on_line, on_drop);
    }
    lines.finish(on_line, on_drop);
  }

  StdioServerParameters server_;
  StdioTransportOptions options_;
  MessageHandler on_message_;
  CloseHandler on_closed_;

  std::mutex close_mutex_;  // serialises start() and close()
  bool started_ = false;
  std::atomic<bool> closed_ = false;

  // One frame at a time. The write itself runs outside the mutex, marked by writing_, so that
  // close() can wait for it with a bound (a condition variable, which ThreadSanitizer follows;
  // std::timed_mutex::try_lock_for goes through pthread_mutex_clocklock, which it does not).
  std::mutex write_mutex_;  // guards writing_ and stdin_open_
  std::condition_variable write_done_;
  bool writing_ = false;
  bool stdin_open_ = false;

  std::unique_ptr<detail::Pipe> stdin_, stdout_, stderr_, wake_;
  std::atomic<bool> wake_signalled_ = false;
  std::unique_ptr<detail::ChildProcess> child_;
  std::thread reader_thread_;
  std::thread stderr_thread_;
};

StdioTransport::StdioTransport(StdioServerParameters server, StdioTransportOptions options)
    : impl_(std::make_unique<Impl>(std::move(server), std::move(options))) {}

StdioTransport::~StdioTransport() = default;

void StdioTransport::start(MessageHandler on_message, CloseHandler on_closed) {
  impl_->start(std::move(on_message), std::move(on_closed));
}

std::error_code StdioTransport::send(const json& frame) { return impl_->send(frame); }

void StdioTransport::close() { impl_->close(); }

int StdioTransport::pid() const { return impl_->pid(); }

std::optional<ExitStatus> StdioTransport::exit_status() const { return impl_->exit_status(); }

}  // namespace mcp
