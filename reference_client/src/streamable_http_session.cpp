#include "streamable_http_session.hpp"

#include "http_call.hpp"
#include "http_support.hpp"

#include <algorithm>

namespace mcp::detail {

bool has_version_header(const std::string& version) { return version >= "2025-06-18"; }

bool valid_session_id(const std::string& id) {
  return !id.empty() &&
         std::all_of(id.begin(), id.end(), [](char c) { return c >= 0x21 && c <= 0x7E; });
}

httplib::Headers session_headers(const HttpOptions& options, const SessionView* session) {
  httplib::Headers result = base_headers(options);
  if (session == nullptr) return result;
  if (!session->id.empty()) result.emplace("Mcp-Session-Id", session->id);
  if (has_version_header(session->version)) {
    result.emplace("MCP-Protocol-Version", session->version);
  }
  return result;
}

httplib::Headers post_headers(const HttpOptions& options, const SessionView* session) {
  httplib::Headers result = session_headers(options, session);
  result.emplace("Content-Type", std::string(kJson));
  // "The client MUST include an Accept header, listing both application/json and
  // text/event-stream as supported content types" (every POST, pongs included).
  result.emplace("Accept", "application/json, text/event-stream");
  return result;
}

void delete_session(const HttpUrl& url, const HttpOptions& options, const std::string& session,
                    const std::string& version) {
  // "Clients that no longer need a particular session ... SHOULD send an HTTP DELETE to
  // the MCP endpoint with the Mcp-Session-Id header, to explicitly terminate the session."
  HttpCall call(url.origin(), post_timeouts(options));
  httplib::Headers request_headers = base_headers(options);
  request_headers.emplace("Mcp-Session-Id", session);
  if (has_version_header(version)) {
    request_headers.emplace("MCP-Protocol-Version", version);
  }
  const auto result =
      call.run("DELETE", url.target, std::move(request_headers), std::string(), nullptr, nullptr);
  if (!result.head) {
    options.logger(LogLevel::warning, "DELETE of the session failed: " + result.detail);
  } else if (result.head->status == 405) {
    options.logger(LogLevel::info, "the server does not let clients end sessions (HTTP 405)");
  } else if (!result.head->ok() && result.head->status != 404) {
    options.logger(LogLevel::warning,
                   "DELETE of the session answered HTTP " + std::to_string(result.head->status));
  }
}

}  // namespace mcp::detail
