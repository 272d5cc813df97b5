// The stdio transport: spawns the server as a child process and exchanges newline-delimited
// JSON-RPC over its stdin/stdout; its stderr is drained by a thread of its own.
#pragma once

#include "mcp/log.hpp"
#include "mcp/transport.hpp"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

struct StdioServerParameters {
  // argv of the server; command[0] is a path, or a name looked up in PATH.
  std::vector<std::string> command;
  // Working directory of the server; empty = inherit ours.
  std::filesystem::path working_directory;
};

struct StdioTransportOptions {
  // A stdout line longer than this is dropped (and logged) instead of buffered.
  std::size_t max_line_bytes = 16 * 1024 * 1024;
  // Shutdown escalation (MCP lifecycle, stdio): close the server's stdin and wait
  // stdin_close_grace, then SIGTERM and wait terminate_grace, then SIGKILL and wait kill_grace.
  std::chrono::milliseconds stdin_close_grace{2000};
  std::chrono::milliseconds terminate_grace{2000};
  std::chrono::milliseconds kill_grace{2000};
  // Receives the server's stderr one line at a time (without the newline; very long lines in
  // pieces). Called from the stderr thread. Default: forward to our stderr, prefixed.
  std::function<void(std::string_view line)> stderr_sink;
  Logger logger;  // default: stderr_logger()
};

// How the server process ended.
struct ExitStatus {
  bool signaled = false;  // true: killed by `signal`; false: exited with `code`
  int code = 0;
  int signal = 0;
};

class StdioTransport final : public Transport {
 public:
  explicit StdioTransport(StdioServerParameters server, StdioTransportOptions options = {});
  ~StdioTransport() override;  // close()

  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  void start(MessageHandler on_message, CloseHandler on_closed) override;
  std::error_code send(const nlohmann::json& frame) override;
  void close() override;

  // The server's pid, or -1 before start().
  int pid() const;
  // How the server ended, once it has been reaped.
  std::optional<ExitStatus> exit_status() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcp
