// mcp-broken-client: a deliberately defective stdio MCP client with a driver-contract front,
// for the suite's self-tests. Without --fault it behaves; each --fault switches on one defect
// that real clients have shipped, so the self-tests can prove the check meant for that defect
// catches it (a check that cannot fail is a defect of the suite).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

const std::set<std::string> kFaults = {
    "no-pong",                // never answers pings
    "method-not-found",       // answers every server request, ping included, with -32601
    "collision-as-result",    // matches frames to the pending call by id alone
    "id-to-string",           // pongs with the id turned into a string
    "pong-malformed-ids",     // pongs whatever the id is (null, objects, ...)
    "sigpipe",                // leaves SIGPIPE at its default: a failed pong write kills it
    "single-threaded",        // reads only while awaiting a response: idle pings wait
    "ignore-unknown",         // stays silent on server requests it does not implement
    "reply-to-notification",  // answers a ping that has no id
};

std::set<std::string> faults;
bool has(const char* fault) { return faults.count(fault) > 0; }

[[noreturn]] void die(const std::string& why, int status = 2) {
  std::cerr << "mcp-broken-client: " << why << "\n";
  std::exit(status);
}

bool same_id(const json& a, const json& b) {
  if (a.is_string() || b.is_string()) return a.is_string() && b.is_string() && a == b;
  return a.is_number_integer() && b.is_number_integer() && a == b;
}

class Connection {
 public:
  explicit Connection(const std::vector<std::string>& argv) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) die("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0) die("fork failed");
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

  ~Connection() { close(); }

  json request(const std::string& method, const json& params) {
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

  void notify(const std::string& method) { write({{"jsonrpc", "2.0"}, {"method", method}}); }

  void close() {
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

  void deliver(const json& frame) {
    const std::lock_guard lock(mutex_);
    response_ = frame;
    ready_.notify_all();
  }

  void handle(const std::string& line) {
    const json frame = json::parse(line, nullptr, false);
    if (frame.is_discarded() || !frame.is_object()) return;
    if (has("collision-as-result") && frame.contains("id")) {
      const std::lock_guard lock(mutex_);
      if (pending_id_ && frame["id"] == json(*pending_id_)) {
        response_ = frame;
        ready_.notify_all();
        return;
      }
    }
    if (!frame.contains("method")) {
      const std::lock_guard lock(mutex_);
      if (pending_id_ && frame.contains("id") && same_id(frame["id"], json(*pending_id_))) {
        response_ = frame;
        ready_.notify_all();
      }
      return;
    }
    const std::string method =
        frame["method"].is_string() ? frame["method"].get<std::string>() : "";
    if (!frame.contains("id")) {
      if (method == "ping" && has("reply-to-notification")) {
        write({{"jsonrpc", "2.0"}, {"id", nullptr}, {"result", json::object()}});
      }
      return;
    }
    const json& id = frame["id"];
    const bool valid_id = id.is_string() || id.is_number_integer();
    if (method == "ping") {
      if (has("no-pong")) return;
      if (has("method-not-found")) return reply_error(id, -32601, "Method not found");
      if (!valid_id && !has("pong-malformed-ids")) return;
      const json pong_id = has("id-to-string") && !id.is_string() ? json(id.dump()) : id;
      write({{"jsonrpc", "2.0"}, {"id", pong_id}, {"result", json::object()}});
      return;
    }
    if (has("ignore-unknown")) return;
    reply_error(id, -32601, "Method not found");
  }

  void reply_error(const json& id, int code, const char* message) {
    write({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
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

void print_step(std::size_t step, const std::string& op, bool ok, const json& payload) {
  json line = {{"step", step}, {"op", op}, {"ok", ok}};
  line[ok ? "result" : "error"] = payload;
  std::cout << line.dump() << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--fault" && i + 1 < argc) {
      const std::string fault = argv[++i];
      if (!kFaults.count(fault)) die("unknown fault '" + fault + "'");
      faults.insert(fault);
    } else {
      die("usage: mcp-broken-client [--fault NAME]...");
    }
  }
  if (!has("sigpipe")) ::signal(SIGPIPE, SIG_IGN);

  const char* transport = std::getenv("MCP_CONFORMANCE_TRANSPORT");
  const char* context_text = std::getenv("MCP_CONFORMANCE_CONTEXT");
  const char* revision = std::getenv("MCP_CONFORMANCE_PROTOCOL_VERSION");
  if (!transport || !context_text || !revision) die("MCP_CONFORMANCE_* variables missing");
  const json context = json::parse(context_text, nullptr, false);
  if (context.is_discarded() || !context.contains("steps")) die("bad MCP_CONFORMANCE_CONTEXT");
  const std::set<std::string> ops = {"connect", "call_tool", "list_tools", "ping", "idle", "close"};
  if (std::string(transport) != "stdio") return 127;
  for (const auto& step : context["steps"]) {
    if (!ops.count(step.value("op", ""))) return 127;
  }

  std::optional<Connection> connection;
  std::size_t index = 0;
  for (const auto& step : context["steps"]) {
    const std::string op = step["op"];
    try {
      json result = json::object();
      if (op == "connect") {
        connection.emplace(context["server"]["command"].get<std::vector<std::string>>());
        result = connection->request(
            "initialize", {{"protocolVersion", revision},
                           {"capabilities", json::object()},
                           {"clientInfo", {{"name", "mcp-broken-client"}, {"version", "1"}}}});
        connection->notify("notifications/initialized");
      } else if (op == "idle") {
        std::this_thread::sleep_for(std::chrono::milliseconds(step.value("ms", 0)));
      } else if (op == "close") {
        if (connection) connection->close();
      } else if (!connection) {
        throw std::runtime_error("not connected");
      } else if (op == "call_tool") {
        result = connection->request("tools/call",
                                     {{"name", step["name"]}, {"arguments", step["arguments"]}});
      } else if (op == "list_tools") {
        result = connection->request("tools/list", json::object());
      } else if (op == "ping") {
        result = connection->request("ping", json::object());
      }
      print_step(index, op, true, result);
    } catch (const std::exception& e) {
      print_step(index, op, false, {{"message", e.what()}});
    }
    ++index;
  }
  return 0;
}
