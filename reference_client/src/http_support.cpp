#include "http_support.hpp"

namespace mcp::detail {

using nlohmann::json;

HttpTimeouts stream_timeouts(const HttpOptions& options) {
  return {options.connect_timeout, options.stream_idle_timeout, options.post_timeout};
}

HttpTimeouts post_timeouts(const HttpOptions& options) {
  return {options.connect_timeout, options.post_timeout, options.post_timeout};
}

httplib::Headers base_headers(const HttpOptions& options) {
  httplib::Headers headers;
  for (const auto& [name, value] : options.headers) headers.emplace(name, value);
  return headers;
}

std::optional<json> parse_event_data(std::string_view data, const Logger& logger) {
  if (data.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::nullopt;
  json frame = json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (frame.is_discarded()) {
    logger(LogLevel::warning, "skipped an SSE event that is not JSON: " + excerpt(data));
    return std::nullopt;
  }
  return frame;
}

std::string describe(const json& frame) {
  if (!frame.is_object()) return "message";
  const auto method = frame.find("method");
  const auto id = frame.find("id");
  const std::string id_text = id != frame.end() ? id->dump() : std::string();
  if (method != frame.end() && method->is_string()) {
    return (id != frame.end() ? "request '" : "notification '") + method->get<std::string>() + "'" +
           (id != frame.end() ? " id " + id_text : std::string());
  }
  return "response to id " + id_text;
}

std::string excerpt(std::string_view text) {
  if (text.size() <= 200) return std::string(text);
  return std::string(text.substr(0, 200)) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace mcp::detail
