// Diagnostics sink shared by the client and its transports.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace mcp {

enum class LogLevel { debug, info, warning, error };

std::string_view to_string(LogLevel level) noexcept;

// Called from any of the client's threads; must be thread-safe and must not block for long.
using Logger = std::function<void(LogLevel, std::string_view message)>;

// Writes "<prefix><level>: <message>\n" to stderr in one write, so lines from several
// threads do not interleave. Messages below min_level are dropped.
Logger stderr_logger(std::string prefix = "mcp-client: ", LogLevel min_level = LogLevel::info);

}  // namespace mcp
