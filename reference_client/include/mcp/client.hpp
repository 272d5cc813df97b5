// The reference MCP client: handshake, requests with timeouts, answers to server requests
// (ping answered automatically), optional keepalive pings.
#pragma once

#include "mcp/error.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/log.hpp"
#include "mcp/transport.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mcp {

struct Implementation {
  std::string name = "mcp-reference-client";
  std::string version = "0.1.0";
};

struct KeepaliveOptions {
  // Time between keepalive pings; zero disables keepalive.
  std::chrono::milliseconds interval{0};
  // How long one keepalive ping may wait for its answer; zero = interval.
  std::chrono::milliseconds timeout{0};
  // Consecutive failed pings (timeout or send failure) after which the connection is treated
  // as failed: it is closed and on_connection_lost is called.
  int failure_threshold = 3;
};

struct ClientOptions {
  Implementation client_info;
  // A legacy version (2024-11-05 to 2025-11-25) is offered in initialize; a modern one
  // (2026-07-28) starts a modern session: server/discover, _meta on every request, no
  // initialize, no ping, server requests left unanswered (docs/reference-client.md).
  std::string protocol_version = "2025-11-25";
  nlohmann::json capabilities = nlohmann::json::object();
  // Default timeout of every request; each call can override it.
  std::chrono::milliseconds request_timeout{30000};
  KeepaliveOptions keepalive;
  Logger logger;  // default: stderr_logger()
  // Called once when the connection is lost without close() having been called: the server
  // went away or keepalive reached its failure threshold. Called from a background thread.
  std::function<void(const Error&)> on_connection_lost;
};

// Thread-safe: every member function may be called from any thread. Handlers run on the
// transport's reader thread, so they must not wait for this client's own requests.
class Client {
 public:
  // Answers one server request: returns the result object, or throws mcp::Error::rpc(...) to
  // answer with that error (any other exception answers -32603 Internal error).
  using RequestHandler = std::function<nlohmann::json(const nlohmann::json& params)>;
  using NotificationHandler = std::function<void(const nlohmann::json& params)>;
  using Timeout = std::optional<std::chrono::milliseconds>;

  explicit Client(std::unique_ptr<Transport> transport, ClientOptions options = {});
  ~Client();  // close()

  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Starts the transport, runs initialize and sends notifications/initialized; starts
  // keepalive if configured. Returns the InitializeResult. For a modern protocol_version:
  // probes with server/discover instead and returns the DiscoverResult (a legacy server gets
  // the initialize handshake at 2025-11-25). Throws mcp::Error.
  nlohmann::json connect(Timeout timeout = std::nullopt);

  // tools/call; returns the CallToolResult.
  nlohmann::json call_tool(const std::string& name,
                           const nlohmann::json& arguments = nlohmann::json::object(),
                           Timeout timeout = std::nullopt);
  // tools/list; returns the ListToolsResult.
  nlohmann::json list_tools(const std::optional<std::string>& cursor = std::nullopt,
                            Timeout timeout = std::nullopt);
  // A client-initiated ping; returns the (empty) result.
  nlohmann::json ping(Timeout timeout = std::nullopt);

  // Any request. Blocks until the response, the timeout (then notifications/cancelled is
  // sent and errc::timeout thrown) or the end of the connection (errc::connection_closed).
  nlohmann::json request(const std::string& method, const nlohmann::json& params = nlohmann::json(),
                         Timeout timeout = std::nullopt);
  // Any notification; throws on a send failure.
  void notify(const std::string& method, const nlohmann::json& params = nlohmann::json());

  // Replaces the answer to server requests of `method`. An empty handler restores the
  // default: the automatic `{}` for ping, -32601 Method not found for anything else.
  void set_request_handler(const std::string& method, RequestHandler handler);
  void set_notification_handler(const std::string& method, NotificationHandler handler);

  // Stops keepalive, shuts the transport down and fails pending requests with
  // errc::connection_closed. Idempotent.
  void close();

  bool connected() const;
  // The InitializeResult (modern: DiscoverResult) of the last successful connect(), or null.
  nlohmann::json initialize_result() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcp
