#include "http/http_channel.hpp"

#include <unistd.h>

#include <atomic>

#include "engine/host.hpp"
#include "http_routes.hpp"
#include "httplib_support.hpp"

namespace mcpping {

struct HttpChannel::Server {
  Server(Transcript& transcript, const HttpOptions& options)
      : parts(transcript, options),
        routes(options.legacy ? std::unique_ptr<HttpRoutes>(new LegacyRoutes(parts))
                              : std::make_unique<StreamableRoutes>(parts)) {}
  httplib::Server http;
  AcceptLoop accept_loop;
  HttpParts parts;
  std::unique_ptr<HttpRoutes> routes;
  std::atomic<bool> stopping{false};
};

HttpChannel::HttpChannel(Transcript& transcript, HttpOptions options)
    : options_(options), server_(std::make_unique<Server>(transcript, options_)) {}

HttpChannel::~HttpChannel() { stop(); }

void HttpChannel::start() {
  configure_server(server_->http, HttplibSizing{options_.workers, options_.max_body_bytes});
  server_->routes->install(server_->http);
  const int port = server_->http.bind_to_any_port("127.0.0.1");
  if (port <= 0) throw std::runtime_error("cannot bind 127.0.0.1");
  server_->parts.port = port;
  raise_backlog(port);
  // Connections made before the accept loop runs wait in the backlog: the URL goes out now.
  server_->accept_loop.start(server_->http);
}

int HttpChannel::port() const { return server_->parts.port; }

std::string HttpChannel::url() const {
  return "http://127.0.0.1:" + std::to_string(port()) + (options_.legacy ? "/sse" : "/mcp");
}

void HttpChannel::stop() {
  if (server_->stopping.exchange(true)) return;
  server_->parts.exchanges.stop();
  server_->parts.inbox.stop();
  server_->accept_loop.stop(server_->http, std::chrono::seconds(5));
}

SendResult HttpChannel::send(const std::vector<std::string>& frames, const SendOptions& options) {
  return server_->parts.exchanges.send(frames, options);
}

SendResult HttpChannel::send_raw(const std::string& bytes, std::size_t chunk,
                                 const std::string& route) {
  return server_->parts.exchanges.send_raw(bytes, chunk, route);
}

DisconnectResult HttpChannel::disconnect(const std::string& route) {
  return server_->parts.exchanges.disconnect(route);
}

Incoming HttpChannel::receive(Clock::time_point deadline) {
  return server_->parts.inbox.receive(deadline);
}

void HttpChannel::end_input(Incoming::Kind why) { server_->parts.inbox.end_input(why); }

bool HttpChannel::arm_post_fault(const PostFault& fault) {
  server_->parts.faults.arm(fault);
  return true;
}

std::size_t HttpChannel::write_stderr(std::string_view bytes, Clock::time_point deadline) {
  return write_stderr_bounded(STDERR_FILENO, bytes, deadline);
}

}  // namespace mcpping
