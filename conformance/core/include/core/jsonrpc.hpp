// JSON-RPC 2.0 message shapes, as MCP uses them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace mcpping {

using Json = nlohmann::json;

// The method name, or "" when there is none or it is not a string.
std::string method_of(const Json& message);

// A request has a method and an id; a notification a method and no id; a response a result
// or an error and no method.
bool is_request(const Json& message);
bool is_notification(const Json& message);
bool is_response(const Json& message);

// MCP request ids are strings or integers (never null, fractional, or structured).
bool is_valid_request_id(const Json& id);

}  // namespace mcpping
