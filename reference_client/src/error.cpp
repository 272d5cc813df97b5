#include "mcp/error.hpp"

namespace mcp {
namespace {

class ClientCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "mcp.client"; }
  std::string message(int value) const override {
    switch (static_cast<errc>(value)) {
      case errc::rpc_error:
        return "the server answered with a JSON-RPC error";
      case errc::timeout:
        return "request timed out";
      case errc::connection_closed:
        return "connection closed";
      case errc::send_failed:
        return "could not send the message";
      case errc::not_connected:
        return "not connected";
      case errc::spawn_failed:
        return "could not start the server process";
      case errc::invalid_response:
        return "invalid response from the server";
      case errc::unsupported_protocol_version:
        return "unsupported protocol version";
      case errc::invalid_state:
        return "operation not allowed in the current state";
      case errc::connection_failed:
        return "could not connect to the server";
      case errc::session_expired:
        return "the server ended the session";
    }
    return "unknown mcp.client error";
  }
};

class HttpStatusCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "mcp.http"; }
  std::string message(int value) const override { return "HTTP status " + std::to_string(value); }
};

}  // namespace

const std::error_category& client_category() noexcept {
  static const ClientCategory category;
  return category;
}

std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), client_category()};
}

const std::error_category& http_status_category() noexcept {
  static const HttpStatusCategory category;
  return category;
}

std::error_code http_status_error(int status) noexcept { return {status, http_status_category()}; }

Error::Error(std::error_code code, const std::string& message)
    : std::runtime_error(message), code_(code) {}

Error Error::rpc(int code, const std::string& message, nlohmann::json data) {
  Error error(errc::rpc_error, message);
  error.rpc_code_ = code;
  error.data_ = std::move(data);
  return error;
}

}  // namespace mcp
