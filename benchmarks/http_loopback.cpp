// mcp-http-loopback-bench [--posts N] [--workers N]
//                         [--mock-server EXE --script FILE --evidence-dir DIR]
//
// The ceiling of the HTTP mock server's stack on this machine (docs/performance.md,
// "loopback"): N POSTs of a pong-sized JSON body, one after another, each on a new connection
// with a new cpp-httplib client, as the reference client posts each pong of a burst, against
//   bare-close       a bare cpp-httplib server on an ephemeral 127.0.0.1 port answering 202
//                    with "Connection: close", as the mock server answers every POST;
//   bare-keep-alive  the same server keeping connections open, and one client (TCP_NODELAY)
//                    for all N POSTs: one connection, what the pattern costs without a
//                    connect per POST;
//   mock-server      with --mock-server, mcp-mock-http-server running FILE (a resolved
//                    Streamable HTTP script): after initialize, the POSTs are pongs in its
//                    session, recorded in its transcript under DIR as in a real burst.
// Prints one line per server and the ratios of their wall times. The bare servers get
// --workers threads (default 64, as the mock server). Exit status 0; 1 when a POST failed
// or the mock server did not start; 2 for a bad command line.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr auto kMockStartLimit = std::chrono::seconds(10);
constexpr auto kMockStopLimit = std::chrono::seconds(5);
constexpr auto kServerStartLimit = std::chrono::seconds(5);
constexpr auto kIoLimit = std::chrono::seconds(5);  // a connect, a read or a write

struct Options {
  long posts = 10000;
  long workers = 64;
  std::string mock_server;
  std::string script;
  std::string evidence_dir;
};

// What one server measured: how many POSTs were answered 202, in how long, over how many
// connections.
struct Figure {
  std::string name;
  long posts = 0;
  long accepted = 0;
  long connections = 0;
  double ms = 0;
};

void usage(std::FILE* to, const char* argv0) {
  std::fprintf(to,
               "usage: %s [--posts N] [--workers N] [--mock-server EXE --script FILE "
               "--evidence-dir DIR]\n"
               "  --posts N        POSTs per server, one after another (default 10000)\n"
               "  --workers N      the bare servers' worker threads (default 64)\n"
               "  --mock-server    also measure mcp-mock-http-server EXE on the resolved\n"
               "                   Streamable HTTP script FILE, its evidence in DIR\n",
               argv0);
}

std::optional<long> positive(const char* text) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value <= 0) return std::nullopt;
  return value;
}

// The command line, or nullopt (after the usage message) when it is not one.
std::optional<Options> parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (i + 1 >= argc) return std::nullopt;
    const char* value = argv[++i];
    if (word == "--posts" || word == "--workers") {
      const auto number = positive(value);
      if (!number) return std::nullopt;
      (word == "--posts" ? options.posts : options.workers) = *number;
    } else if (word == "--mock-server") {
      options.mock_server = value;
    } else if (word == "--script") {
      options.script = value;
    } else if (word == "--evidence-dir") {
      options.evidence_dir = value;
    } else {
      return std::nullopt;
    }
  }
  const bool any_mock =
      !options.mock_server.empty() || !options.script.empty() || !options.evidence_dir.empty();
  const bool all_mock =
      !options.mock_server.empty() && !options.script.empty() && !options.evidence_dir.empty();
  if (any_mock && !all_mock) return std::nullopt;
  return options;
}

std::string pong(long id) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + ",\"result\":{}}";
}

// The headers the reference client sends with every POST (a pong's included).
httplib::Headers post_headers(const std::string& session, const std::string& version) {
  httplib::Headers headers{{"Accept", "application/json, text/event-stream"}};
  if (!session.empty()) headers.emplace("Mcp-Session-Id", session);
  if (!version.empty()) headers.emplace("MCP-Protocol-Version", version);
  return headers;
}

// Bounds every wait of `client` (kIoLimit).
void bound_waits(httplib::Client& client) {
  client.set_connection_timeout(kIoLimit);
  client.set_read_timeout(kIoLimit);
  client.set_write_timeout(kIoLimit);
}

// POSTs `posts` pongs to `origin` + `path` one after another, a new client (and so a new
// connection) per POST unless `keep_alive`.
Figure post_pongs(const std::string& name, const std::string& origin, const std::string& path,
                  long posts, bool keep_alive, const httplib::Headers& headers) {
  Figure figure{name, posts, 0, 0, 0};
  const auto count_connection = [&figure](int) { ++figure.connections; };
  std::optional<httplib::Client> shared;
  if (keep_alive) {
    shared.emplace(origin);
    bound_waits(*shared);
    shared->set_keep_alive(true);
    // httplib writes a request's head and body apart: without TCP_NODELAY, on a reused
    // connection, the body waits for the delayed ACK of the head (about 40 ms a POST).
    shared->set_tcp_nodelay(true);
    shared->set_socket_options(count_connection);
  }
  const auto start = Clock::now();
  for (long id = 1; id <= posts; ++id) {
    std::optional<httplib::Client> own;
    if (!keep_alive) {
      own.emplace(origin);
      bound_waits(*own);
      own->set_socket_options(count_connection);
    }
    httplib::Client& client = keep_alive ? *shared : *own;
    const auto result = client.Post(path, headers, pong(id), "application/json");
    if (result && result->status == 202) ++figure.accepted;
  }
  figure.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return figure;
}

// A bare cpp-httplib server on an ephemeral loopback port that answers every POST 202.
class BareServer {
 public:
  BareServer(long workers, bool keep_alive) {
    const auto count = static_cast<std::size_t>(workers);
    server_.new_task_queue = [count] { return new httplib::ThreadPool(count); };
    server_.set_tcp_nodelay(true);
    if (keep_alive) {
      server_.set_keep_alive_max_count(1u << 30);
    } else {
      server_.set_keep_alive_max_count(1);  // "Connection: close" on every answer
    }
    server_.Post("/mcp", [](const httplib::Request&, httplib::Response& res) { res.status = 202; });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("cannot bind 127.0.0.1");
    listener_ = std::thread([this] {
      server_.listen_after_bind();
      listened_ = true;
    });
    const auto until = Clock::now() + kServerStartLimit;
    while (!server_.is_running() && Clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!server_.is_running()) {
      stop();
      throw std::runtime_error("the bare server did not start");
    }
  }
  ~BareServer() { stop(); }
  BareServer(const BareServer&) = delete;
  BareServer& operator=(const BareServer&) = delete;

  std::string origin() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  // httplib 0.11's stop() is a no-op until the accept loop runs: repeated until it has ended.
  void stop() {
    while (!listened_) {
      server_.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (listener_.joinable()) listener_.join();
  }

  httplib::Server server_;
  std::atomic<bool> listened_{false};
  std::thread listener_;
  int port_ = 0;
};

Figure measure_bare(const Options& options, bool keep_alive) {
  const BareServer server(options.workers, keep_alive);
  return post_pongs(keep_alive ? "bare-keep-alive" : "bare-close", server.origin(), "/mcp",
                    options.posts, keep_alive, post_headers({}, {}));
}

int pidfd_open(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

// The mock server as a child process, ended (TERM, then KILL) with this object; it is killed
// with this process too (PR_SET_PDEATHSIG), so no server outlives the benchmark.
class MockProcess {
 public:
  explicit MockProcess(const Options& options) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ == 0) exec_child(options, out[1]);
    ::close(out[1]);
    stdout_ = out[0];
    if (pid_ < 0) throw std::runtime_error("fork failed");
  }
  ~MockProcess() { stop(); }
  MockProcess(const MockProcess&) = delete;
  MockProcess& operator=(const MockProcess&) = delete;

  // The {"url":...} line the server prints once it accepts, read within kMockStartLimit.
  std::string read_url() {
    std::string line;
    const auto until = Clock::now() + kMockStartLimit;
    while (line.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      pollfd ready{stdout_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&ready, 1, static_cast<int>(left.count())) <= 0) return {};
      char buffer[512];
      const auto got = ::read(stdout_, buffer, sizeof buffer);
      if (got <= 0) return {};
      line.append(buffer, static_cast<std::size_t>(got));
    }
    const auto parsed = json::parse(line.substr(0, line.find('\n')), nullptr, false);
    return parsed.is_object() && parsed.contains("url") && parsed["url"].is_string()
               ? parsed["url"].get<std::string>()
               : std::string();
  }

 private:
  [[noreturn]] static void exec_child(const Options& options, int out) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(out, STDOUT_FILENO);
    const char* argv[] = {options.mock_server.c_str(),  "--script",
                          options.script.c_str(),       "--evidence-dir",
                          options.evidence_dir.c_str(), nullptr};
    ::execv(argv[0], const_cast<char* const*>(argv));
    ::_exit(127);
  }

  // TERM, then KILL after kMockStopLimit; the child is reaped either way.
  void stop() {
    if (stdout_ >= 0) ::close(stdout_);
    stdout_ = -1;
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    const int fd = pidfd_open(pid_);
    pollfd ended{fd, POLLIN, 0};
    const auto limit = std::chrono::duration_cast<std::chrono::milliseconds>(kMockStopLimit);
    if (fd < 0 || ::poll(&ended, 1, static_cast<int>(limit.count())) <= 0) ::kill(pid_, SIGKILL);
    if (fd >= 0) ::close(fd);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  pid_t pid_ = -1;
  int stdout_ = -1;
};

// The JSON object in an answer that is JSON or one server-sent event.
json answer_object(const std::string& body) {
  const auto first = body.find('{');
  const auto last = body.rfind('}');
  if (first == std::string::npos || last == std::string::npos || last < first) return {};
  return json::parse(body.substr(first, last - first + 1), nullptr, false);
}

struct Session {
  std::string id;
  std::string version;
};

// initialize and notifications/initialized, as the reference client starts a session.
std::optional<Session> open_session(const std::string& origin, const std::string& path) {
  httplib::Client client(origin);
  bound_waits(client);
  const json initialize{
      {"jsonrpc", "2.0"},
      {"id", 0},
      {"method", "initialize"},
      {"params",
       {{"protocolVersion", "2025-11-25"},
        {"capabilities", json::object()},
        {"clientInfo", {{"name", "mcp-http-loopback-bench"}, {"version", "1"}}}}}};
  const auto answer =
      client.Post(path, post_headers({}, {}), initialize.dump(), "application/json");
  if (!answer || answer->status != 200) return std::nullopt;
  const auto result = answer_object(answer->body);
  if (!result.is_object() || !result.contains("result")) return std::nullopt;
  Session session{answer->get_header_value("Mcp-Session-Id"),
                  result["result"].value("protocolVersion", std::string())};
  httplib::Client second(origin);
  bound_waits(second);
  const auto initialized =
      second.Post(path, post_headers(session.id, session.version),
                  R"({"jsonrpc":"2.0","method":"notifications/initialized"})", "application/json");
  if (!initialized || initialized->status != 202) return std::nullopt;
  return session;
}

// "http://127.0.0.1:PORT/mcp" as origin and path.
std::pair<std::string, std::string> split_url(const std::string& url) {
  const auto slash = url.find('/', url.find("://") + 3);
  if (slash == std::string::npos) return {url, "/"};
  return {url.substr(0, slash), url.substr(slash)};
}

std::optional<Figure> measure_mock(const Options& options) {
  MockProcess mock(options);
  const auto url = mock.read_url();
  if (url.empty()) {
    std::fprintf(stderr, "mcp-http-loopback-bench: %s printed no URL within %lld s\n",
                 options.mock_server.c_str(), static_cast<long long>(kMockStartLimit.count()));
    return std::nullopt;
  }
  const auto [origin, path] = split_url(url);
  const auto session = open_session(origin, path);
  if (!session) {
    std::fprintf(stderr, "mcp-http-loopback-bench: no session with the mock server at %s\n",
                 url.c_str());
    return std::nullopt;
  }
  return post_pongs("mock-server", origin, path, options.posts, false,
                    post_headers(session->id, session->version));
}

void print_figure(const Figure& figure) {
  std::printf("%s: %ld/%ld answered 202, %.1f ms, %.4f ms per POST, %ld connection%s\n",
              figure.name.c_str(), figure.accepted, figure.posts, figure.ms,
              figure.ms / static_cast<double>(figure.posts), figure.connections,
              figure.connections == 1 ? "" : "s");
}

void print_ratio(const Figure& a, const Figure& b) {
  std::printf("ratio %s / %s: %.2f\n", a.name.c_str(), b.name.c_str(),
              b.ms > 0 ? a.ms / b.ms : 0.0);
}

// Measures and prints every server; false when a server could not be measured whole.
bool run(const Options& options) {
  std::printf("%ld POSTs per server of a pong's body (up to %zu bytes), one after another\n",
              options.posts, pong(options.posts).size());
  std::vector<Figure> figures{measure_bare(options, false), measure_bare(options, true)};
  bool whole = true;
  if (!options.mock_server.empty()) {
    const auto mock = measure_mock(options);
    if (mock) figures.push_back(*mock);
    whole = mock.has_value();
  }
  for (const auto& figure : figures) {
    print_figure(figure);
    whole = whole && figure.accepted == figure.posts;
  }
  if (figures.size() > 2) print_ratio(figures[2], figures[0]);
  print_ratio(figures[0], figures[1]);
  if (figures.size() > 2) print_ratio(figures[2], figures[1]);
  return whole;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--help") {
    usage(stdout, argv[0]);
    return 0;
  }
  const auto options = parse_options(argc, argv);
  if (!options) {
    usage(stderr, argv[0]);
    return 2;
  }
  // A server that closes first must not kill the client writing to it.
  ::signal(SIGPIPE, SIG_IGN);
  try {
    return run(*options) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mcp-http-loopback-bench: %s\n", e.what());
    return 1;
  }
}
