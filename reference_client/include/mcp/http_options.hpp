// Settings shared by the HTTP transports (Streamable HTTP and legacy HTTP+SSE).
#pragma once

#include "mcp/log.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <string>

namespace mcp {

struct HttpOptions {
  // Added to every HTTP request, e.g. {"Authorization", "Bearer ..."}.
  std::map<std::string, std::string> headers;
  std::chrono::milliseconds connect_timeout{10000};
  // Bound on a POST that carries a notification or a response (the server answers those at
  // once, 202 Accepted), and on the DELETE that ends a session.
  std::chrono::milliseconds post_timeout{10000};
  // Longest silence on a stream (an SSE response or the GET stream) before the transport
  // gives up on it. Streams legitimately idle for long; the client's request timeouts, not
  // this, bound how long a caller waits for an answer.
  std::chrono::milliseconds stream_idle_timeout{std::chrono::hours(24)};
  // A JSON body or SSE event larger than this is dropped (and logged) instead of buffered.
  std::size_t max_message_bytes = 16 * 1024 * 1024;
  Logger logger;  // default: stderr_logger()
};

}  // namespace mcp
