// JSON-RPC 2.0 building blocks: request ids that keep their JSON type, classification of an
// incoming frame by its shape, and message constructors.
#pragma once

#include <nlohmann/json.hpp>

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace mcp {

// An MCP request id: a string or an integer, never null, boolean or fractional.
// The JSON type is part of the value: RequestId(1) != RequestId("1"). Integers cover
// -2^63 .. 2^64-1 exactly (non-negative ones are stored unsigned, as nlohmann parses them),
// so every id the server sends is echoed with the same text.
class RequestId {
 public:
  explicit RequestId(std::int64_t value);
  explicit RequestId(std::uint64_t value) : value_(value) {}
  explicit RequestId(std::string value) : value_(std::move(value)) {}
  explicit RequestId(const char* value) : value_(std::string(value)) {}

  // The id carried by `id`, or nullopt when it is not a valid MCP id (null, boolean,
  // fractional or non-integral number, object, array).
  static std::optional<RequestId> from_json(const nlohmann::json& id);

  nlohmann::json to_json() const;
  bool is_string() const noexcept { return std::holds_alternative<std::string>(value_); }
  std::string to_string() const;  // the id as JSON text, for logs

  // Type-strict: unlike nlohmann::json's operator==, an integer never equals a string and
  // integers are never compared as floating point.
  friend bool operator==(const RequestId&, const RequestId&) = default;
  friend std::strong_ordering operator<=>(const RequestId&, const RequestId&) = default;

 private:
  // Negative integers are int64_t, non-negative ones uint64_t: one representation per value.
  std::variant<std::int64_t, std::uint64_t, std::string> value_;
};

// What an incoming frame is, decided by its members and never by its id: a frame with
// `method` is a request (has an `id` member) or a notification (has none), never a response.
enum class MessageKind {
  request,         // `method` string and an `id` member (the id may still be malformed)
  notification,    // `method` string and no `id` member
  response,        // no `method`, a `result` member
  error_response,  // no `method`, an `error` member
  invalid,         // anything else: not an object, non-string method, neither result nor error
};

MessageKind classify(const nlohmann::json& frame) noexcept;

nlohmann::json make_request(const RequestId& id, const std::string& method,
                            const nlohmann::json& params = nlohmann::json());
nlohmann::json make_notification(const std::string& method,
                                 const nlohmann::json& params = nlohmann::json());
nlohmann::json make_result(const RequestId& id, nlohmann::json result);
nlohmann::json make_error(const RequestId& id, int code, const std::string& message,
                          const nlohmann::json& data = nlohmann::json());

}  // namespace mcp
