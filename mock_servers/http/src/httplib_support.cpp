#include "httplib_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

namespace mcpping {

namespace {

// Calls `visit(fd, peer_port)` for every IPv4 socket of this process bound to `server_port`;
// peer_port is 0 for the listening socket. httplib 0.11 exposes neither its listening nor its
// accepted sockets, and both are needed below.
template <typename Visit>
void for_each_server_socket(int server_port, Visit&& visit) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    sockaddr_in local{}, peer{};
    socklen_t local_len = sizeof local, peer_len = sizeof peer;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
        local.sin_family != AF_INET || ntohs(local.sin_port) != server_port)
      continue;
    const bool connected = ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) == 0;
    if (!visit(fd, connected ? ntohs(peer.sin_port) : 0)) return;
  }
}

}  // namespace

void configure_server(httplib::Server& server, const HttplibSizing& sizing) {
  const auto workers = sizing.workers;
  // Each open stream and each connection waiting for its request holds a worker in httplib 0.11.
  server.new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  server.set_payload_max_length(sizing.max_body_bytes);
  // One request per connection ("Connection: close" on every answer): a worker is free as
  // soon as it has answered, instead of waiting for the client to send more or to close.
  // Clients that open a connection per request (Node's fetch with a short keep-alive hint,
  // docs/performance.md) otherwise hold a worker each until they get round to closing.
  server.set_keep_alive_max_count(1);
  // httplib 0.11 waits this long for the first request of a connection too: a loaded
  // client may connect and write its request seconds later (2 s lost pongs of a burst).
  server.set_keep_alive_timeout(kFirstRequestWaitSeconds);
  // A client that stops reading holds a worker 2 s, not the default 5 s.
  server.set_write_timeout(2, 0);
  server.set_tcp_nodelay(true);  // chopped events leave as separate segments, at once
}

void raise_backlog(int server_port) {
  for_each_server_socket(server_port, [](int fd, int peer) {
    if (peer == 0) ::listen(fd, 1024);
    return true;
  });
}

// stop() is a no-op until the accept loop runs (httplib 0.11 has no wait_until_ready).
bool wait_until_running(const httplib::Server& server, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!server.is_running() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return server.is_running();
}

AcceptLoop::~AcceptLoop() {
  if (thread_.joinable()) thread_.join();
}

void AcceptLoop::start(httplib::Server& server) {
  thread_ = std::thread([this, &server] {
    server.listen_after_bind();
    ended_ = true;
  });
}

void AcceptLoop::stop(httplib::Server& server, std::chrono::milliseconds limit) {
  if (!thread_.joinable()) return;
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!server.is_running() && !ended_ && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server.stop();
  thread_.join();
}

int connection_fd(int server_port, int peer_port) {
  int found = -1;
  for_each_server_socket(server_port, [&](int fd, int peer) {
    if (peer != peer_port) return true;
    found = fd;
    return false;
  });
  return found;
}

bool peer_closed(int fd) {
  char byte = 0;
  return ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

void abort_connection(int server_port, int peer_port) {
  const int found = connection_fd(server_port, peer_port);
  if (found < 0) return;
  // Abort: no response at all, and an RST when httplib closes the socket.
  const linger abort_now{1, 0};
  ::setsockopt(found, SOL_SOCKET, SO_LINGER, &abort_now, sizeof abort_now);
  ::shutdown(found, SHUT_RDWR);
}

// httplib 0.11 routes a POST without Content-Length only to a handler without a reader.
httplib::ContentReader empty_content_reader() {
  return httplib::ContentReader(
      [](const httplib::ContentReceiver&) { return true; },
      [](const httplib::MultipartContentHeader&, const httplib::ContentReceiver&) { return true; });
}

void set_event_stream(httplib::Response& res,
                      std::function<bool(std::size_t, httplib::DataSink&)> provide,
                      std::function<void(bool)> on_done) {
  res.set_header("Cache-Control", "no-cache");
  // Exactly "text/event-stream": with parameters httplib 0.11 would compress and buffer it.
  res.set_chunked_content_provider("text/event-stream", std::move(provide), std::move(on_done));
}

}  // namespace mcpping
