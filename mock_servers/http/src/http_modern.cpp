#include "http_modern.hpp"

#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "engine/modern.hpp"

namespace mcpping {

namespace {

constexpr std::string_view kSentinelOpen = "=?base64?";
constexpr std::string_view kSentinelClose = "?=";

// The Base64 alphabet (RFC 4648, section 4): a digit's value is its place in it.
constexpr std::string_view kBase64Digits =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  for (std::size_t at = 0; at < text.size(); at += 4) {
    std::size_t bits = 0;
    std::size_t padding = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const char c = text[at + k];
      // Padding only at the very end, and at most two characters of it.
      if (c == '=' && at + 4 == text.size() && k >= 2) {
        ++padding;
        bits <<= 6;
        continue;
      }
      const auto digit = kBase64Digits.find(c);
      if (padding > 0 || digit == std::string_view::npos) return std::nullopt;
      bits = (bits << 6) | digit;
    }
    out += static_cast<char>((bits >> 16) & 0xFF);
    if (padding < 2) out += static_cast<char>((bits >> 8) & 0xFF);
    if (padding < 1) out += static_cast<char>(bits & 0xFF);
  }
  return out;
}

std::string quoted(const std::string& text) { return safe_dump(Json(shorten(text, 80))); }

// A header a request POST mirrors from its body: its rules, the body value (nullopt: none),
// whether it is required without one, whether it may come Base64-encoded (Mcp-Name only).
struct Mirror {
  const char* header;
  HttpRuleId missing, mismatch;
  std::optional<std::string> body;
  std::string body_field;
  bool required, decode;
};

// The header (present) against the body value it mirrors: why it differs, or nullopt.
std::optional<std::string> differs(const httplib::Request& req, const Mirror& m) {
  if (!m.body) return std::nullopt;
  const auto sent = req.get_header_value(m.header);
  const auto value = m.decode ? decode_header_value(sent) : std::optional<std::string>(sent);
  if (!value)
    return std::string(m.header) + " " + quoted(sent) +
           " uses the =?base64?...?= form with invalid Base64";
  // "Header values (such as method names) are case-sensitive."
  if (*value == *m.body) return std::nullopt;
  return std::string(m.header) + " " + quoted(sent) + ", but the body's " + m.body_field + " is " +
         quoted(*m.body);
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

std::vector<Rejection> modern_header_problems(const httplib::Request& req, const Json& message) {
  std::vector<Rejection> out;
  if (!message.is_object() || !is_request(message)) return out;
  const auto name = mirrored_name(message);
  const Mirror mirrors[] = {
      {"MCP-Protocol-Version", HttpRuleId::ModernVersionMissing, HttpRuleId::ModernVersionMismatch,
       meta_protocol_version(message), std::string("_meta ") + kMetaProtocolVersion, true, false},
      {"Mcp-Method", HttpRuleId::MethodMissing, HttpRuleId::MethodMismatch, method_of(message),
       "method", true, false},
      {"Mcp-Name", HttpRuleId::NameMissing, HttpRuleId::NameMismatch, name,
       method_of(message) == "resources/read" ? "params.uri" : "params.name", name.has_value(),
       true},
  };
  for (const auto& m : mirrors) {
    if (!req.has_header(m.header)) {
      if (m.required) out.push_back({m.missing, std::string("no ") + m.header + " header"});
    } else if (auto why = differs(req, m)) {
      out.push_back({m.mismatch, std::move(*why)});
    }
  }
  return out;
}

}  // namespace mcpping
