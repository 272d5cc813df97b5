// The request metadata headers of Streamable HTTP's 2026-07-28 binding: every POST mirrors
// fields of its JSON-RPC body into headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) "so
// that intermediaries ... can route and inspect requests without parsing the body".
#pragma once

#include "mcp/http_options.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace mcp::detail {

// `value` as a header value. Plain when it is header-safe ASCII; else, and for a value that
// looks like the sentinel itself, "=?base64?<Base64 of the UTF-8 bytes>?=": "When a value
// cannot be safely represented as a plain ASCII header value (e.g., it contains non-ASCII
// characters, control characters, or has leading/trailing whitespace), clients MUST use
// Base64 encoding", and "clients MUST also Base64-encode any plain-ASCII value that matches
// the sentinel pattern".
std::string encode_header_value(std::string_view value);

// The headers of a POST carrying `frame` in a modern session at `version`: the user's, the
// Content-Type and Accept of every POST, MCP-Protocol-Version ("Every POST request to the MCP
// endpoint MUST include an MCP-Protocol-Version header"), Mcp-Method (the frame's method),
// and Mcp-Name for tools/call and prompts/get (params.name) and resources/read (params.uri).
// No session id: the binding has none.
httplib::Headers modern_post_headers(const HttpOptions& options, const std::string& version,
                                     const nlohmann::json& frame);

}  // namespace mcp::detail
