// Small pieces both HTTP transports use: timeouts and base headers from HttpOptions, the
// JSON in an SSE event, and short descriptions of messages for logs.
#pragma once

#include "http_call.hpp"
#include "mcp/http_options.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mcp::detail {

inline constexpr std::string_view kEventStream = "text/event-stream";
inline constexpr std::string_view kJson = "application/json";
// How much of an HTTP error's body is read and logged.
inline constexpr std::size_t kErrorBodyCap = 64 * 1024;
// How long close() waits for the transport's threads to finish their calls.
inline constexpr std::chrono::milliseconds kCloseLimit{10000};

// Timeouts of a call that reads a stream, and of a POST answered at once.
HttpTimeouts stream_timeouts(const HttpOptions& options);
HttpTimeouts post_timeouts(const HttpOptions& options);

// The user's headers from the options.
httplib::Headers base_headers(const HttpOptions& options);

// The JSON-RPC message in an SSE `message` event; nullopt (logged) when it is not JSON, and
// silently for an event without data, such as the priming event of 2025-11-25.
std::optional<nlohmann::json> parse_event_data(std::string_view data, const Logger& logger);

// "request 'tools/call' id 3", "response to id 7", ... for logs.
std::string describe(const nlohmann::json& frame);
// The first 200 bytes of `text`, for logs.
std::string excerpt(std::string_view text);

}  // namespace mcp::detail
