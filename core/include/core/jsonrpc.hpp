// JSON-RPC 2.0 message shapes, as MCP uses them.
#pragma once

#include <optional>
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

// A JSON-RPC batch as MCP 2025-03-26 has it: a non-empty array of requests and notifications,
// or of responses. Why not, in a few words, or nullopt when it is one. `mixed_ok` accepts
// responses mixed with requests or notifications (a lenient reader processes them).
std::optional<std::string> batch_problem(const Json& message, bool mixed_ok = false);
// batch_problem()'s answer for a batch holding initialize, which a lifecycle rule forbids.
inline constexpr const char* kBatchedInitialize = "initialize inside a batch";

// MCP request ids are strings or integers (never null, fractional, or structured).
bool is_valid_request_id(const Json& id);

}  // namespace mcpping
