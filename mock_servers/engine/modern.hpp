// The modern lifecycle (revision 2026-07-28 on) as the mock server speaks it: no initialize,
// server/discover, and the io.modelcontextprotocol/* fields every client request carries in
// its _meta (docs/scenario-format.md, "The modern lifecycle").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/default_server.hpp"

namespace mcpping {

using Json = nlohmann::json;

inline constexpr const char* kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kMetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kMetaServerInfo = "io.modelcontextprotocol/serverInfo";

// The modern revisions the mock server supports (its DiscoverResult's supportedVersions).
std::vector<std::string> supported_modern_revisions();

// The DiscoverResult: supported versions, capabilities, the cache fields
// (cacheable_result) and the server's identity in _meta.
Json discover_result(const ServerDefaults& defaults);

// `result` with the fields every 2026-07-28 CacheableResult requires (DiscoverResult,
// ListToolsResult, ...; schema 2026-07-28, CacheableResult): "ttlMs": 0, "the response
// SHOULD be considered immediately stale", and "cacheScope": "private", the narrower scope.
Json cacheable_result(Json result);

// `result` as a modern server returns it: "resultType": "complete" (the 2026-07-28 Result
// requires it) and the server's identity in _meta ("Servers SHOULD include" it).
Json modern_result(Json result, const ServerDefaults& defaults);

// The protocol version a request's _meta names, when it names one as a string.
std::optional<std::string> meta_protocol_version(const Json& request);

// What a client request's _meta breaks among the required per-request fields: each missing
// or malformed field. Empty when none. A version the server does not support breaks nothing
// ("fields marked as required MUST be included"): the server answers it with
// UnsupportedProtocolVersionError and the client SHOULD retry (unsupported_meta_version).
std::vector<std::string> meta_problems(const Json& request);

// The protocol version a request's _meta names as a string when the server does not support
// it, said in words; nullopt otherwise.
std::optional<std::string> unsupported_meta_version(const Json& request);

// Whether a client request's _meta lacks io.modelcontextprotocol/clientInfo (a SHOULD).
bool lacks_client_info(const Json& request);

}  // namespace mcpping
