// The modern lifecycle (revision 2026-07-28 on) as the client speaks it: which versions are
// modern, the per-request _meta fields, the server/discover probe and what its answer means.
// Pure functions; Client uses them.
#pragma once

#include "mcp/error.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mcp::modern {

// JSON-RPC codes of 2026-07-28 ("reserved for the MCP specification").
inline constexpr int header_mismatch = -32020;
inline constexpr int missing_required_client_capability = -32021;
inline constexpr int unsupported_protocol_version = -32022;

// Whether `version` is a modern revision this client speaks ("2026-07-28").
bool is_modern_version(std::string_view version);

// The identity and capabilities a modern request carries in _meta.
struct RequestMeta {
  std::string protocol_version;
  nlohmann::json client_capabilities = nlohmann::json::object();
  nlohmann::json client_info;  // {"name", "version"}; null: not sent
};

// `params` with the io.modelcontextprotocol/* fields added to its _meta (other _meta keys
// kept). Null params become an object. "fields marked as required MUST be included on every
// request"; "Clients SHOULD include io.modelcontextprotocol/clientInfo on every request".
nlohmann::json with_request_meta(nlohmann::json params, const RequestMeta& meta);

// What the server/discover probe told the client.
enum class ProbeOutcome {
  modern,  // a DiscoverResult, or a recognized modern error: the server speaks modern MCP
  legacy,  // any other error, or no answer in time: fall back to initialize
};

// The probe's failure read per the stdio transport's Backward Compatibility rules: "a
// recognized modern JSON-RPC error such as UnsupportedProtocolVersionError" means a modern
// server; "any other error, or does not respond within a reasonable timeout" a legacy one.
// Errors of the connection itself (closed, send failed) are neither: nullopt, rethrow.
std::optional<ProbeOutcome> probe_outcome(const Error& error);

// The modern version to use with a server whose DiscoverResult (or UnsupportedProtocolVersion
// error data, `supported`) lists `supported`: `preferred` when listed, else the first modern
// version this client speaks; nullopt when there is none.
std::optional<std::string> choose_version(const nlohmann::json& supported,
                                          const std::string& preferred);

}  // namespace mcp::modern
