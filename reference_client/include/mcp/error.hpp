// Errors reported by the reference client: a std::error_code category with stable values,
// and one exception type that carries the code, a message and (for server errors) the
// JSON-RPC error object.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>

namespace mcp {

// Values are stable: they are part of the public interface and documented in
// docs/reference-client.md. Zero is never used (it means "no error").
enum class errc {
  // The server answered the request with a JSON-RPC error; Error::rpc_code() holds its code.
  rpc_error = 1,
  // No response arrived within the request timeout; notifications/cancelled was sent.
  timeout = 2,
  // The connection ended (server exited, stdout closed, close() called) before a response.
  connection_closed = 3,
  // The request could not be written to the transport.
  send_failed = 4,
  // A request was made before connect() started the transport.
  not_connected = 5,
  // The server process could not be started.
  spawn_failed = 6,
  // The server's response does not have the shape the method requires.
  invalid_response = 7,
  // The server chose a protocol version this client does not support.
  unsupported_protocol_version = 8,
  // connect() was called on a client that is already connecting, connected or closed.
  invalid_state = 9,
  // An HTTP transport could not reach the server: connection refused, an error status to the
  // stream request, no `endpoint` event (legacy HTTP+SSE).
  connection_failed = 10,
  // The server ended the HTTP session (404 to a request carrying Mcp-Session-Id); the next
  // request starts a new session.
  session_expired = 11,
};

const std::error_category& client_category() noexcept;
std::error_code make_error_code(errc e) noexcept;

// HTTP status codes as std::error_code values ("mcp.http" category; value = status), for an
// HTTP transport's send() when the server answered a POST with an error status.
const std::error_category& http_status_category() noexcept;
std::error_code http_status_error(int status) noexcept;

// JSON-RPC 2.0 error codes used by the client when it answers server requests.
namespace rpc_code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
}  // namespace rpc_code

class Error : public std::runtime_error {
 public:
  Error(std::error_code code, const std::string& message);

  // A JSON-RPC error: from a server's error response, or thrown by a request handler to
  // answer the server with this error.
  static Error rpc(int code, const std::string& message, nlohmann::json data = nlohmann::json());

  std::error_code code() const noexcept { return code_; }
  // The JSON-RPC error code when code() == errc::rpc_error.
  std::optional<int> rpc_code() const noexcept { return rpc_code_; }
  // The JSON-RPC error's `data` member, or null.
  const nlohmann::json& data() const noexcept { return data_; }

 private:
  std::error_code code_;
  std::optional<int> rpc_code_;
  nlohmann::json data_;
};

}  // namespace mcp

template <>
struct std::is_error_code_enum<mcp::errc> : std::true_type {};
