// The broken client over stdio: a reader thread (or none, with --fault single-threaded).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "connection.hpp"
#include "faults.hpp"
#include "pending_request.hpp"

namespace broken {
namespace {

// splices-pong: where a large request is split (well under a pipe's 64 KiB).
constexpr std::size_t kSpliceAt = 32 * 1024;

class StdioConnection : public Connection {
 public:
  explicit StdioConnection(const std::vector<std::string>& argv) {
    int in[2], out[2], err[2] = {-1, -1};
    if (::pipe(in) != 0 || ::pipe(out) != 0) throw std::runtime_error("pipe failed");
    if (has("no-stderr-drain") && ::pipe(err) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      if (err[1] >= 0) ::dup2(err[1], 2);
      ::close(in[0]);
      ::close(in[1]);
      ::close(out[0]);
      ::close(out[1]);
      std::vector<char*> args;
      for (const auto& word : argv) args.push_back(const_cast<char*>(word.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      _exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    if (err[1] >= 0) ::close(err[1]);
    undrained_stderr_ = err[0];  // kept open, never read: the server's writes fill the pipe
    to_server_ = in[1];
    from_server_ = out[0];
    if (!has("single-threaded")) reader_ = std::thread([this] { read_loop(); });
  }

  ~StdioConnection() override { close(); }

  json request(const std::string& method, const json& params,
               std::optional<Timeout> timeout) override {
    const int id = next_request_id(method, next_id_);
    pending_.begin(id, method);
    write({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    if (has("single-threaded")) {
      // Reads only now, answering whatever server requests queued up meanwhile.
      while (true) {
        const auto line = read_line();
        if (!line || !handle(*line)) throw std::runtime_error("connection closed");
        if (auto result = pending_.poll(id)) return *result;
      }
    }
    return pending_.wait(id, timeout.value_or(kWait));
  }

  void notify(const std::string& method, const json& params) override {
    json frame = {{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.is_null()) frame["params"] = params;
    write(frame);
  }

  void close() override {
    if (to_server_ >= 0) ::close(std::exchange(to_server_, -1));
    if (pid_ > 0) {
      for (int i = 0; i < 200 && ::waitpid(pid_, nullptr, WNOHANG) == 0; ++i) ::usleep(10000);
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    if (reader_.joinable()) reader_.join();
    if (from_server_ >= 0) ::close(std::exchange(from_server_, -1));
    if (undrained_stderr_ >= 0) ::close(std::exchange(undrained_stderr_, -1));
  }

 private:
  void write(const json& frame) {
    const std::string line = frame.dump() + "\n";
    if (has("splices-pong") && frame.contains("method") && line.size() > kSpliceAt) {
      write_spliced(line);
      return;
    }
    const std::lock_guard lock(write_mutex_);
    write_bytes(line);
  }

  // splices-pong: the first part of the line, then (once the reader has answered a server
  // request, bounded) the rest, never holding the write lock across the two.
  void write_spliced(const std::string& line) {
    {
      const std::lock_guard lock(write_mutex_);
      answered_ = false;
      write_bytes(line.substr(0, kSpliceAt));
    }
    {
      std::unique_lock lock(write_mutex_);
      answered_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return answered_; });
    }
    const std::lock_guard lock(write_mutex_);
    write_bytes(line.substr(kSpliceAt));
  }

  void write_bytes(std::string_view bytes) {
    if (to_server_ < 0) return;
    if (::write(to_server_, bytes.data(), bytes.size()) < 0) {
      std::cerr << "mcp-broken-client: write failed: " << std::strerror(errno) << "\n";
    }
  }

  void write_reply(const json& reply) {
    write(reply);
    const std::lock_guard lock(write_mutex_);
    answered_ = true;
    answered_cv_.notify_all();
  }

  std::optional<std::string> read_line() {
    while (true) {
      if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      char chunk[65536];
      const ssize_t n = ::read(from_server_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  void read_loop() {
    while (const auto line = read_line()) {
      if (!handle(*line)) break;
    }
    pending_.end();
  }

  // Takes one line from the server; false when the reader stops here.
  bool handle(const std::string& line) {
    for (const auto& frame : messages_in(line)) {
      const auto next = pending_.offer(frame);
      if (next == PendingRequests::Next::StopReading) return false;
      if (next != PendingRequests::Next::Answer) continue;
      if (const json reply = reply_to(frame); !reply.is_null()) {
        if (has("batch-pongs")) {
          batched_.push_back(reply);
        } else {
          write_reply(reply);
        }
      }
    }
    // batch-pongs: the replies to the lines read together go out as one JSON array.
    if (!batched_.empty() && buffer_.find('\n') == std::string::npos)
      write(json(std::exchange(batched_, {})));
    return true;
  }

  pid_t pid_ = -1;
  int to_server_ = -1;
  int from_server_ = -1;
  int undrained_stderr_ = -1;    // no-stderr-drain: the server's stderr, never read
  std::atomic<int> next_id_{1};  // requests may start on several threads
  std::string buffer_;
  std::vector<json> batched_;  // batch-pongs: replies not written yet
  std::thread reader_;
  std::mutex write_mutex_;
  std::condition_variable answered_cv_;  // splices-pong: the reader answered a request
  bool answered_ = false;
  PendingRequests pending_;
};

}  // namespace

std::unique_ptr<Connection> connect_stdio(const std::vector<std::string>& argv) {
  return std::make_unique<StdioConnection>(argv);
}

}  // namespace broken
