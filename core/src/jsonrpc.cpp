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

std::optional<std::string> batch_problem(const Json& message, bool mixed_ok) {
  if (!message.is_array()) return "not an array";
  if (message.empty()) return "an empty array";
  bool responses = false, others = false;
  for (const auto& element : message) {
    if (is_response(element)) {
      responses = true;
    } else if (is_request(element) || is_notification(element)) {
      others = true;
      if (method_of(element) == "initialize") return kBatchedInitialize;
    } else {
      return "an element that is not a request, notification or response";
    }
  }
  if (responses && others && !mixed_ok)
    return "responses mixed with requests or notifications in one batch";
  return std::nullopt;
}

bool is_valid_request_id(const Json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace mcpping
