#include "modern_http_headers.hpp"

#include "http_support.hpp"

namespace mcp::detail {

namespace {

constexpr std::string_view kSentinelOpen = "=?base64?";
constexpr std::string_view kSentinelClose = "?=";

std::string base64(std::string_view bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t at = 0; at < bytes.size(); at += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - at);
    unsigned bits = 0;
    for (std::size_t k = 0; k < 3; ++k)
      bits = (bits << 8) | (k < n ? static_cast<unsigned char>(bytes[at + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k)
      out += k <= n ? kDigits[(bits >> (18 - 6 * k)) & 0x3F] : '=';
  }
  return out;
}

bool header_safe(std::string_view value) {
  if (value.empty()) return true;
  if (value.front() == ' ' || value.back() == ' ') return false;
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte > 0x7E) return false;  // control characters and non-ASCII
  }
  return true;
}

bool looks_like_sentinel(std::string_view value) {
  return value.size() >= kSentinelOpen.size() + kSentinelClose.size() &&
         value.substr(0, kSentinelOpen.size()) == kSentinelOpen &&
         value.substr(value.size() - kSentinelClose.size()) == kSentinelClose;
}

// The body member Mcp-Name mirrors, or null.
const char* name_field(const std::string& method) {
  if (method == "tools/call" || method == "prompts/get") return "name";
  if (method == "resources/read") return "uri";
  return nullptr;
}

}  // namespace

std::string encode_header_value(std::string_view value) {
  if (header_safe(value) && !looks_like_sentinel(value)) return std::string(value);
  return std::string(kSentinelOpen) + base64(value) + std::string(kSentinelClose);
}

httplib::Headers modern_post_headers(const HttpOptions& options, const std::string& version,
                                     const nlohmann::json& frame) {
  httplib::Headers result = base_headers(options);
  result.emplace("Content-Type", std::string(kJson));
  result.emplace("Accept", "application/json, text/event-stream");
  result.emplace("MCP-Protocol-Version", version);
  const auto method = frame.is_object() ? frame.find("method") : frame.end();
  if (method == frame.end() || !method->is_string()) return result;
  result.emplace("Mcp-Method", method->get<std::string>());
  const char* field = name_field(method->get<std::string>());
  const auto params = frame.find("params");
  if (field == nullptr || params == frame.end() || !params->is_object()) return result;
  const auto name = params->find(field);
  if (name != params->end() && name->is_string())
    result.emplace("Mcp-Name", encode_header_value(name->get<std::string>()));
  return result;
}

}  // namespace mcp::detail
