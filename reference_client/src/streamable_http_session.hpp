// The Streamable HTTP session as requests carry it: the Mcp-Session-Id and
// MCP-Protocol-Version headers, the checks on a session id the server issues, and the DELETE
// that ends a session.
#pragma once

#include "http_url.hpp"
#include "mcp/http_options.hpp"

#include <httplib.h>

#include <string>

namespace mcp::detail {

// The session as one request sees it: read once, so that its headers and the handling of
// its answer agree even if the session changes meanwhile.
struct SessionView {
  std::string id;
  std::string version;
  bool lost = false;  // the server ended it and no new one was started yet
  // `version` is modern (2026-07-28): the binding without sessions, whose POSTs carry the
  // request metadata headers (modern_http_headers).
  bool modern = false;
};

// The MCP-Protocol-Version header exists from 2025-06-18 on; revision names sort by date.
bool has_version_header(const std::string& version);

// "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)."
bool valid_session_id(const std::string& id);

// The headers of a request in `session`; null: the initialize request, which starts afresh.
httplib::Headers session_headers(const HttpOptions& options, const SessionView* session);
// The same plus the Content-Type and Accept every POST carries.
httplib::Headers post_headers(const HttpOptions& options, const SessionView* session);

// Ends `session` with DELETE (`version`: the negotiated protocol version) and logs what came
// of it; a 405 or 404 is fine.
void delete_session(const HttpUrl& url, const HttpOptions& options, const std::string& session,
                    const std::string& version);

}  // namespace mcp::detail
