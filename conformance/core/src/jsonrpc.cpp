#include "core/jsonrpc.hpp"

namespace mcpping {

std::string method_of(const Json& message) {
  if (!message.is_object()) return {};
  const auto it = message.find("method");
  return it != message.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool is_request(const Json& message) {
  return message.is_object() && message.contains("method") && message.contains("id");
}

bool is_notification(const Json& message) {
  return message.is_object() && message.contains("method") && !message.contains("id");
}

bool is_response(const Json& message) {
  return message.is_object() && !message.contains("method") &&
         (message.contains("result") || message.contains("error"));
}

bool is_valid_request_id(const Json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace mcpping
