// The transport interface: moves whole JSON-RPC frames between the client and one server.
// stdio is implemented by StdioTransport; Streamable HTTP and legacy HTTP+SSE fit the same
// shape (send() posts a frame, answers and server requests arrive through on_message).
#pragma once

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

  virtual ~Transport() = default;

  // Opens the connection (stdio: spawns the server) and starts the background reader.
  // Throws mcp::Error (errc::spawn_failed, errc::invalid_state) on failure.
  virtual void start(MessageHandler on_message, CloseHandler on_closed) = 0;

  // Writes one frame. Thread-safe. Never raises SIGPIPE; a peer that stopped reading gives
  // an error code (e.g. std::errc::broken_pipe), errc::connection_closed after close().
  virtual std::error_code send(const nlohmann::json& frame) = 0;

  // Ends the connection the transport's normal way and waits (bounded) for its background
  // threads. Idempotent and safe to call from several threads; must not be called from
  // inside on_message or on_closed.
  virtual void close() = 0;
};

}  // namespace mcp
