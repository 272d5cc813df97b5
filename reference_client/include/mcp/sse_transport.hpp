// The legacy HTTP+SSE transport (MCP 2024-11-05, deprecated since 2025-03-26): a GET opens an
// SSE stream whose first event names the endpoint to POST every client message to; every
// server message arrives as a `message` event on that stream.
#pragma once

#include "mcp/http_options.hpp"
#include "mcp/transport.hpp"

#include <chrono>
#include <memory>
#include <string>

namespace mcp {

struct SseTransportOptions : HttpOptions {
  // How long start() waits for the `endpoint` event.
  std::chrono::milliseconds endpoint_timeout{10000};
};

// Thread-safe. One thread reads the SSE stream and delivers messages; send() posts on the
// caller's thread with a connection of its own. The connection ends when the stream ends.
class SseTransport final : public Transport {
 public:
  // `url`: the SSE endpoint. Throws mcp::Error(errc::connection_failed) if it is not an
  // absolute http(s) URL.
  explicit SseTransport(const std::string& url, SseTransportOptions options = {});
  ~SseTransport() override;  // close()

  SseTransport(const SseTransport&) = delete;
  SseTransport& operator=(const SseTransport&) = delete;

  // Opens the stream and waits for the `endpoint` event; throws mcp::Error(
  // errc::connection_failed) if the stream cannot be opened or the event does not come, names
  // an invalid URI or one of another origin.
  void start(MessageHandler on_message, CloseHandler on_closed) override;
  std::error_code send(const nlohmann::json& frame) override;
  void close() override;

  // The resolved endpoint URL, or "" before the `endpoint` event.
  std::string endpoint() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcp
