// The transport interface: moves whole JSON-RPC frames between the client and one server.
// Implemented by StdioTransport, StreamableHttpTransport and SseTransport (legacy HTTP+SSE):
// send() writes or posts a frame, answers and server requests arrive through on_message.
#pragma once

#include "mcp/error.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <system_error>

namespace mcp {

class Transport {
 public:
  // One parsed frame from the server. Called from the transport's background reader, one
  // frame at a time and in arrival order. Lines that are not JSON never reach it.
  using MessageHandler = std::function<void(nlohmann::json frame)>;
  // Called exactly once, after the last on_message call, when the connection ends for any
  // reason (server closed its output, process exited, close()). `reason` is for humans.
  using CloseHandler = std::function<void(std::string reason)>;
  // A message that send() accepted could not be delivered after all (Streamable HTTP posts
  // requests in the background, so their POST can fail after send() returned), or, with a
  // null frame, an event of the connection itself. An error with errc::session_expired means
  // the server ended the session: the next request must start a new one (initialize again).
  // Called from a background thread; must not block.
  using FailureHandler = std::function<void(const nlohmann::json& frame, const Error& error)>;

  virtual ~Transport() = default;

  // Opens the connection (stdio: spawns the server) and starts the background reader.
  // Throws mcp::Error (errc::spawn_failed, errc::connection_failed, errc::invalid_state).
  virtual void start(MessageHandler on_message, CloseHandler on_closed) = 0;

  // Writes one frame. Thread-safe. Never raises SIGPIPE; a peer that stopped reading gives
  // an error code (e.g. std::errc::broken_pipe), errc::connection_closed after close().
  virtual std::error_code send(const nlohmann::json& frame) = 0;

  // Ends the connection the transport's normal way and waits (bounded) for its background
  // threads. Idempotent and safe to call from several threads; must not be called from
  // inside on_message or on_closed.
  virtual void close() = 0;

  // Optional hooks; the defaults ignore them. set_failure_handler is called before start().
  // A sink: implementations keep (move) the handler; this default ignores it.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  virtual void set_failure_handler(FailureHandler /*handler*/) {}
  // The protocol version the initialize handshake agreed on (Streamable HTTP sends it as the
  // MCP-Protocol-Version header from 2025-06-18 on). Called again after a re-initialization.
  virtual void set_protocol_version(const std::string& /*version*/) {}
};

}  // namespace mcp
