// The Streamable HTTP transport: every client message is its own POST to one endpoint; the
// server answers a request with JSON or an SSE stream that may carry other messages before
// the response. Two forms, chosen by set_protocol_version():
//   - 2025-03-26 to 2025-11-25: a session (Mcp-Session-Id from initialize), an optional GET
//     stream for messages unrelated to any request, resumable streams, DELETE at close;
//   - 2026-07-28 (a modern version): no session, no GET stream, no resumption; every POST
//     carries MCP-Protocol-Version, Mcp-Method and, for tools/call, resources/read and
//     prompts/get, Mcp-Name; no JSON-RPC response is ever posted, and a cancellation closes
//     the request's stream instead of posting notifications/cancelled.
#pragma once

#include "mcp/http_options.hpp"
#include "mcp/transport.hpp"

#include <chrono>
#include <memory>
#include <string>

namespace mcp {

struct StreamableHttpOptions : HttpOptions {
  // Open the GET listening stream once notifications/initialized was accepted. A server that
  // answers 405 has none; that is not an error. Nothing else decides whether it opens.
  bool open_get_stream = true;
  // Wait before reconnecting a GET stream (or resuming a POST stream) when the server gave no
  // `retry:` field; `retry:` always wins.
  std::chrono::milliseconds reconnect_delay{1000};
  // Consecutive failed attempts to (re)open a stream after which the transport gives up on it.
  int max_reconnect_attempts = 5;
};

// Thread-safe. Threads: one per request POST in flight (reads its JSON or SSE answer), one
// for the GET stream; notifications and responses (a pong) are posted on the caller's thread,
// with a connection of their own, so a pong never waits behind the stream being read.
class StreamableHttpTransport final : public Transport {
 public:
  // `url`: the MCP endpoint, http:// or https://. Throws mcp::Error(errc::connection_failed)
  // if it is not an absolute http(s) URL.
  explicit StreamableHttpTransport(const std::string& url, StreamableHttpOptions options = {});
  ~StreamableHttpTransport() override;  // close()

  StreamableHttpTransport(const StreamableHttpTransport&) = delete;
  StreamableHttpTransport& operator=(const StreamableHttpTransport&) = delete;

  void start(MessageHandler on_message, CloseHandler on_closed) override;
  // Requests are posted in the background: send() returns at once and a failed POST is
  // reported through the failure handler. Notifications and responses are posted before
  // send() returns: an error status gives http_status_error(status), a 404 to a request
  // carrying the session id errc::session_expired. At a modern version a response is not
  // posted (errc::send_failed) and notifications/cancelled stops its request's stream.
  std::error_code send(const nlohmann::json& frame) override;
  // Stops every stream, then ends the session with DELETE (a 405 is fine).
  void close() override;
  void set_failure_handler(FailureHandler handler) override;
  void set_protocol_version(const std::string& version) override;

  // The session id the server issued, or "" (none yet, or the session expired).
  std::string session_id() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcp
