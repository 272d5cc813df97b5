// The Channel over HTTP on loopback: Streamable HTTP on /mcp (the session-based form of
// 2025-03-26..2025-11-25, or the 2026-07-28 binding) or legacy HTTP+SSE on /sse + /message
// (2024-11-05). Validates every request, records it (`http`/`sse` transcript records), hands
// client messages to the interpreter with their HTTP facts, and writes the script's frames on
// the streams they are routed to. Behaviour: docs/http-mock-server.md.
#pragma once

#include <memory>
#include <string>

#include "engine/channel.hpp"
#include "engine/transcript.hpp"

namespace mcpping {

struct HttpOptions {
  bool legacy = false;           // transport "sse" (HTTP+SSE) instead of "streamable-http"
  bool post_always_sse = false;  // fixture "http": {"post_responses": "sse"}
  // The run's revision is modern (2026-07-28): requests are served by that revision's binding
  // (no sessions, request metadata headers, POST only) unless an initialize starts a legacy
  // session, as a dual-era server does ("An initialize request selects legacy semantics").
  bool modern = false;
  Clock::time_point deadline{};  // the case deadline: no wait lasts beyond it (plus a grace)
  std::size_t max_body_bytes = 4u << 20;
  std::size_t workers = 64;
  std::size_t max_streams = 48;  // open SSE streams and pending POSTs together
};

class HttpChannel : public Channel {
 public:
  HttpChannel(Transcript& transcript, HttpOptions options);
  ~HttpChannel() override;
  HttpChannel(const HttpChannel&) = delete;
  HttpChannel& operator=(const HttpChannel&) = delete;

  // Binds 127.0.0.1 on a free port and serves from a thread; returns once the socket listens
  // (connections wait in its backlog until the accept loop runs).
  // Throws std::runtime_error when it cannot bind.
  void start();
  // "http://127.0.0.1:<port>/mcp" (or "/sse" for legacy).
  std::string url() const;
  int port() const;
  // Ends every stream and stops the server (idempotent). receive() then returns Interrupted.
  void stop();

  SendResult send(const std::vector<std::string>& frames, const SendOptions& options) override;
  SendResult send_raw(const std::string& bytes, std::size_t chunk,
                      const std::string& route) override;
  Incoming receive(Clock::time_point deadline) override;
  void end_input(Incoming::Kind why) override;
  void close_input() override {}  // stdio-only steps never reach an HTTP script
  void close_output() override {}
  std::size_t write_stderr(std::string_view bytes, Clock::time_point deadline) override;
  bool arm_post_fault(const PostFault& fault) override;
  DisconnectResult disconnect(const std::string& route) override;

 private:
  struct Server;  // the httplib server, its routes and the parts they share (http_routes)

  const HttpOptions options_;
  std::unique_ptr<Server> server_;
};

}  // namespace mcpping
