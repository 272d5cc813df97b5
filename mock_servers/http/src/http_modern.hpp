// The 2026-07-28 binding of Streamable HTTP as the mock server checks it: the request metadata
// headers a client mirrors from each request's body into its POST (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name). Pure functions; HttpChannel applies them to the POSTs of a modern
// session (docs/http-mock-server.md, "Streamable HTTP, revision 2026-07-28").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "http_rules.hpp"

namespace mcpping {

// A header value as the body value it mirrors: the Base64 sentinel form
// "=?base64?<Base64 of UTF-8>?=" decoded, any other value as it is; nullopt when the sentinel
// holds no valid Base64 ("servers MUST decode an encoded Mcp-Name ... value before comparing
// it to the corresponding request body value").
std::optional<std::string> decode_header_value(const std::string& value);

// The body value Mcp-Name mirrors: params.name of tools/call and prompts/get, params.uri of
// resources/read. Nullopt for any other method, or when that member is not a string.
std::optional<std::string> mirrored_name(const nlohmann::json& request);

// The header rules a request POST breaks, at most one per header, in header order. Empty for
// a notification or a response: "header requirements for notification POSTs are not defined
// by this revision", and the script checks a response (the client must send none).
// A version in the body's _meta that is absent or not a string is modern:request-meta's
// finding: the version header is then only required, not compared.
std::vector<Rejection> modern_header_problems(const httplib::Request& req,
                                              const nlohmann::json& message);

}  // namespace mcpping
