// What a plain MCP server answers (docs/scenario-format.md, "Default server").
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/revision.hpp"

namespace mcpping {

using Json = nlohmann::json;

struct ServerDefaults {
  Json server_info = Json::object();
  Json capabilities = Json::object();
  Json tools = Json::array();
  std::string revision = default_revision();  // offered when the client's version is unknown
  std::string transport;                      // the case's: a revision must exist on it
};

// From a resolve_script() result.
ServerDefaults server_defaults_from(const Json& resolved);

// The initialize result: the client's protocol version if it is a known revision, else
// the run's; never a modern one, since "An initialize request selects legacy semantics"
// (a modern offer gets the newest legacy revision); and never one the transport does not
// exist in (a 2024-11-05 offer on Streamable HTTP gets 2025-03-26: "Otherwise, the server
// MUST respond with another protocol version it supports").
Json initialize_result(const Json& initialize_request, const ServerDefaults& defaults);

// Which lifecycle the session runs: an initialize handshake, or per-request metadata.
enum class Era { Legacy, Modern };

// The complete response frame the default server sends to `message`, or nullopt when it
// sends none (notifications, responses, anything without a usable id). In a modern session
// ping and initialize are unknown methods (-32601: "If a client calls an unsupported RPC,
// the server MUST return a Method not found JSON-RPC error"), server/discover is answered
// and results carry resultType. Listings, logging/setLevel and completion/complete are answered
// when the capabilities declare their feature (an empty list), else -32601.
std::optional<Json> default_answer(const Json& message, const ServerDefaults& defaults,
                                   Era era = Era::Legacy);

// The requests a real server answers at once whatever else it is doing: listings, settings,
// completion and the client's ping. The mock answers them while its script waits for something
// else, unless a later step expects one (ScriptCursor::later_step_takes).
bool default_service(const std::string& method);

// {"jsonrpc":"2.0","id":id,"result":result} and its error counterpart.
Json make_result(const Json& id, Json result);
Json make_error(const Json& id, int code, const std::string& message);

}  // namespace mcpping
