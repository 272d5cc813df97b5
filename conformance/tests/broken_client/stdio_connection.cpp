// The broken client over stdio: a reader thread (or none, with --fault single-threaded).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "connection.hpp"
#include "faults.hpp"

namespace broken {
namespace {

bool same_id(const json& a, const json& b) {
  if (a.is_string() || b.is_string()) return a.is_string() && b.is_string() && a == b;
  return a.is_number_integer() && b.is_number_integer() && a == b;
}

class StdioConnection : public Connection {
 public:
  explicit StdioConnection(const std::vector<std::string>& argv) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
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
    to_server_ = in[1];
    from_server_ = out[0];
    if (!has("single-threaded")) reader_ = std::thread([this] { read_loop(); });
  }

  ~StdioConnection() override { close(); }

  json request(const std::string& method, const json& params) override {
    const int id = next_id_++;
    {
      const std::lock_guard lock(mutex_);
      pending_id_ = id;
      response_.reset();
    }
    write({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    if (has("single-threaded")) {
      // Reads only now, answering whatever server requests queued up meanwhile.
      while (true) {
        const auto line = read_line();
        if (!line) throw std::runtime_error("connection closed");
        handle(*line);
        const std::lock_guard lock(mutex_);
        if (response_) return take_response();
      }
    }
    std::unique_lock lock(mutex_);
    if (!ready_.wait_for(lock, std::chrono::seconds(5), [&] { return response_ || closed_; })) {
      throw std::runtime_error("request timed out");
    }
    if (!response_) throw std::runtime_error("connection closed");
    return take_response();
  }

  void notify(const std::string& method) override {
    write({{"jsonrpc", "2.0"}, {"method", method}});
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
  }

 private:
  json take_response() {
    json frame = *response_;
    response_.reset();
    pending_id_.reset();
    if (frame.contains("error")) throw std::runtime_error(frame["error"].dump());
    return frame.value("result", json::object());
  }

  void write(const json& frame) {
    const std::string line = frame.dump() + "\n";
    const std::lock_guard lock(write_mutex_);
    if (to_server_ < 0) return;
    if (::write(to_server_, line.data(), line.size()) < 0) {
      std::cerr << "mcp-broken-client: write failed: " << std::strerror(errno) << "\n";
    }
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
    while (const auto line = read_line()) handle(*line);
    const std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_all();
  }

  void handle(const std::string& line) {
    const json frame = json::parse(line, nullptr, false);
    if (frame.is_discarded() || !frame.is_object()) return;
    {
      const std::lock_guard lock(mutex_);
      const bool by_id_alone = has("collision-as-result") && frame.contains("id") && pending_id_ &&
                               frame["id"] == json(*pending_id_);
      const bool response = !frame.contains("method") && frame.contains("id") && pending_id_ &&
                            same_id(frame["id"], json(*pending_id_));
      if (by_id_alone || response) {
        response_ = frame;
        ready_.notify_all();
        return;
      }
    }
    if (!frame.contains("method")) return;
    if (const json reply = reply_to(frame); !reply.is_null()) write(reply);
  }

  pid_t pid_ = -1;
  int to_server_ = -1;
  int from_server_ = -1;
  int next_id_ = 1;
  std::string buffer_;
  std::thread reader_;
  std::mutex write_mutex_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::optional<int> pending_id_;
  std::optional<json> response_;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<Connection> connect_stdio(const std::vector<std::string>& argv) {
  return std::make_unique<StdioConnection>(argv);
}

}  // namespace broken
