#include "http_modern.hpp"

#include <array>

#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "engine/modern.hpp"

namespace mcpping {

namespace {

constexpr std::string_view kSentinelOpen = "=?base64?";
constexpr std::string_view kSentinelClose = "?=";

// The value of a Base64 digit (RFC 4648, section 4), -1 for any other character.
int base64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  for (std::size_t at = 0; at < text.size(); at += 4) {
    std::array<int, 4> digits{};
    std::size_t padding = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const char c = text[at + k];
      // Padding only at the very end, and at most two characters of it.
      if (c == '=' && at + 4 == text.size() && k >= 2) {
        ++padding;
        digits[k] = 0;
        continue;
      }
      if (padding > 0) return std::nullopt;
      digits[k] = base64_digit(c);
      if (digits[k] < 0) return std::nullopt;
    }
    const unsigned bits =
        (static_cast<unsigned>(digits[0]) << 18) | (static_cast<unsigned>(digits[1]) << 12) |
        (static_cast<unsigned>(digits[2]) << 6) | static_cast<unsigned>(digits[3]);
    out += static_cast<char>((bits >> 16) & 0xFF);
    if (padding < 2) out += static_cast<char>((bits >> 8) & 0xFF);
    if (padding < 1) out += static_cast<char>(bits & 0xFF);
  }
  return out;
}

std::string quoted(const std::string& text) { return safe_dump(Json(shorten(text, 80))); }

bool request_post(const Json& message) { return message.is_object() && is_request(message); }

std::optional<std::string> no_header(const httplib::Request& req, const char* name) {
  if (req.has_header(name)) return std::nullopt;
  return std::string("no ") + name + " header";
}

// The header `name` (present) against the body value it mirrors (`body`, nullopt when the
// body has none to compare): why it differs, or nullopt.
std::optional<std::string> differs(const httplib::Request& req, const char* name,
                                   const std::optional<std::string>& body, bool decode,
                                   const std::string& body_field) {
  if (!req.has_header(name) || !body) return std::nullopt;
  const auto sent = req.get_header_value(name);
  const auto value = decode ? decode_header_value(sent) : std::optional<std::string>(sent);
  if (!value)
    return std::string(name) + " " + quoted(sent) +
           " uses the =?base64?...?= form with invalid Base64";
  // "Header values (such as method names) are case-sensitive."
  if (*value == *body) return std::nullopt;
  return std::string(name) + " " + quoted(sent) + ", but the body's " + body_field + " is " +
         quoted(*body);
}

}  // namespace

std::optional<std::string> decode_header_value(const std::string& value) {
  const bool sentinel = value.size() >= kSentinelOpen.size() + kSentinelClose.size() &&
                        value.compare(0, kSentinelOpen.size(), kSentinelOpen) == 0 &&
                        value.compare(value.size() - kSentinelClose.size(), kSentinelClose.size(),
                                      kSentinelClose) == 0;
  if (!sentinel) return value;
  return base64_decode(std::string_view(value).substr(
      kSentinelOpen.size(), value.size() - kSentinelOpen.size() - kSentinelClose.size()));
}

std::optional<std::string> mirrored_name(const Json& request) {
  const auto method = method_of(request);
  const char* field = method == "tools/call" || method == "prompts/get" ? "name"
                      : method == "resources/read"                      ? "uri"
                                                                        : nullptr;
  if (!field) return std::nullopt;
  const auto params = request.find("params");
  if (params == request.end() || !params->is_object()) return std::nullopt;
  const auto value = params->find(field);
  if (value == params->end() || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

std::optional<std::string> modern_version_missing(const httplib::Request& req, const Json& m) {
  return request_post(m) ? no_header(req, "MCP-Protocol-Version") : std::nullopt;
}

std::optional<std::string> modern_version_mismatch(const httplib::Request& req, const Json& m) {
  if (!request_post(m)) return std::nullopt;
  return differs(req, "MCP-Protocol-Version", meta_protocol_version(m), false,
                 std::string("_meta ") + kMetaProtocolVersion);
}

std::optional<std::string> method_missing(const httplib::Request& req, const Json& m) {
  return request_post(m) ? no_header(req, "Mcp-Method") : std::nullopt;
}

std::optional<std::string> method_mismatch(const httplib::Request& req, const Json& m) {
  return request_post(m) ? differs(req, "Mcp-Method", method_of(m), false, "method") : std::nullopt;
}

std::optional<std::string> name_missing(const httplib::Request& req, const Json& m) {
  return request_post(m) && mirrored_name(m) ? no_header(req, "Mcp-Name") : std::nullopt;
}

std::optional<std::string> name_mismatch(const httplib::Request& req, const Json& m) {
  if (!request_post(m)) return std::nullopt;
  return differs(req, "Mcp-Name", mirrored_name(m), true,
                 method_of(m) == "resources/read" ? "params.uri" : "params.name");
}

std::vector<Rejection> modern_header_problems(const httplib::Request& req, const Json& message) {
  return rule_problems(req, message,
                       {HttpRuleId::ModernVersionMissing, HttpRuleId::ModernVersionMismatch,
                        HttpRuleId::MethodMissing, HttpRuleId::MethodMismatch,
                        HttpRuleId::NameMissing, HttpRuleId::NameMismatch});
}

}  // namespace mcpping
