#include "mcp/json_rpc.hpp"

namespace mcp {

using nlohmann::json;

RequestId::RequestId(std::int64_t value) {
  if (value >= 0) {
    value_ = static_cast<std::uint64_t>(value);
  } else {
    value_ = value;
  }
}

// GCC 12 reports a false -Wmaybe-uninitialized for std::string inside a std::variant held in
// a returned std::optional (GCC bug 105562); the code is well defined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
std::optional<RequestId> RequestId::from_json(const json& id) {
  switch (id.type()) {
    case json::value_t::string:
      return RequestId(id.get<std::string>());
    case json::value_t::number_unsigned:
      return RequestId(id.get<std::uint64_t>());
    case json::value_t::number_integer:
      return RequestId(id.get<std::int64_t>());
    default:
      // null, boolean, float (fractional, or an integer beyond 2^64-1 that nlohmann could only
      // keep as a double), object, array: not an MCP id.
      return std::nullopt;
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

json RequestId::to_json() const {
  return std::visit([](const auto& v) { return json(v); }, value_);
}

std::string RequestId::to_string() const { return to_json().dump(); }

MessageKind classify(const json& frame) noexcept {
  if (!frame.is_object()) return MessageKind::invalid;
  const auto method = frame.find("method");
  if (method != frame.end()) {
    if (!method->is_string()) return MessageKind::invalid;
    return frame.contains("id") ? MessageKind::request : MessageKind::notification;
  }
  if (frame.contains("result")) return MessageKind::response;
  if (frame.contains("error")) return MessageKind::error_response;
  return MessageKind::invalid;
}

json make_request(const RequestId& id, const std::string& method, const json& params) {
  json message = {{"jsonrpc", "2.0"}, {"id", id.to_json()}, {"method", method}};
  if (!params.is_null()) message["params"] = params;
  return message;
}

json make_notification(const std::string& method, const json& params) {
  json message = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = params;
  return message;
}

json make_result(const RequestId& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id.to_json()}, {"result", std::move(result)}};
}

json make_error(const RequestId& id, int code, const std::string& message, const json& data) {
  json error = {{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = data;
  return {{"jsonrpc", "2.0"}, {"id", id.to_json()}, {"error", std::move(error)}};
}

}  // namespace mcp
