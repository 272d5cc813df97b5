// Everything the HTTP mock server does to work around cpp-httplib 0.11, in one place.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <thread>

#include <httplib.h>

namespace mcpping {

// How long a new connection may stay silent before its request (httplib 0.11's keep-alive
// timeout, which also bounds that wait); a silent connection holds a worker that long.
constexpr int kFirstRequestWaitSeconds = 5;

struct HttplibSizing {
  std::size_t workers = 64;
  std::size_t max_body_bytes = 4u << 20;
};

// Worker pool, body cap, one request per connection, first-request and write timeouts,
// TCP_NODELAY.
void configure_server(httplib::Server& server, const HttplibSizing& sizing);

// Raises the listen backlog of the socket bound to `server_port`: httplib 0.11 listens with a
// backlog of 5 (compiled into the library), which a burst of clients would overflow.
void raise_backlog(int server_port);

// Waits until the accept loop runs (at most `limit`); false if it never did.
bool wait_until_running(const httplib::Server& server, std::chrono::milliseconds limit);

// A bound server's accept loop, on a thread of its own. The socket listens from the bind on,
// so a client may connect before the loop runs (its connection waits in the backlog): the
// server's URL can be given out as soon as start() returns, without waiting for the thread.
class AcceptLoop {
 public:
  AcceptLoop() = default;
  ~AcceptLoop();
  AcceptLoop(const AcceptLoop&) = delete;
  AcceptLoop& operator=(const AcceptLoop&) = delete;

  void start(httplib::Server& server);
  // Ends the loop and joins its thread (idempotent). httplib 0.11's stop() does nothing
  // until the loop runs, so this first waits for it to run, at most `limit`.
  void stop(httplib::Server& server, std::chrono::milliseconds limit);

 private:
  std::thread thread_;
  std::atomic<bool> ended_{false};
};

// Aborts the accepted connection whose client port is `peer_port`: no response, an RST.
void abort_connection(int server_port, int peer_port);
// The accepted socket of the connection from `peer_port`, -1 if none: httplib 0.11 gives
// handlers no socket, and an idle SSE stream must notice a client that closed it (a "reset"
// fault aborts that very connection).
int connection_fd(int server_port, int peer_port);
// True when the peer of connected socket `fd` has closed its side (end of file waits).
bool peer_closed(int fd);

// A ContentReader that reads nothing, for a handler of a request without a body.
httplib::ContentReader empty_content_reader();

// Makes `res` a server-sent event stream fed by `provide`; `on_done(success)` runs when it ends.
void set_event_stream(httplib::Response& res,
                      std::function<bool(std::size_t, httplib::DataSink&)> provide,
                      std::function<void(bool)> on_done);

}  // namespace mcpping
