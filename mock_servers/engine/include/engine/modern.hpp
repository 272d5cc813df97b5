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

// The DiscoverResult: supported versions, capabilities, and the server's identity in _meta.
Json discover_result(const ServerDefaults& defaults);

// `result` as a modern server returns it: "resultType": "complete" (the 2026-07-28 Result
// requires it) and the server's identity in _meta ("Servers SHOULD include" it). The result
// of `method` when it is a CacheableResult (cacheable_result()) also carries the caching
// hints that schema requires: "ttlMs": 0 (immediately stale) and "cacheScope": "private".
Json modern_result(Json result, const ServerDefaults& defaults, const std::string& method = {});

// Whether the 2026-07-28 result of `method` is a CacheableResult (requires ttlMs and
// cacheScope): server/discover, the listings and resources/read.
bool cacheable_result(const std::string& method);

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
