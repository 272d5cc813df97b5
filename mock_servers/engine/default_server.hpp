// What a plain MCP server answers (docs/scenario-format.md, "Default server").
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace mcpping {

using Json = nlohmann::json;

struct ServerDefaults {
  Json server_info = Json::object();
  Json capabilities = Json::object();
  Json tools = Json::array();
  std::string revision = "2025-11-25";  // offered when the client's version is unknown
};

// From a resolve_script() result.
ServerDefaults server_defaults_from(const Json& resolved);

// The initialize result: the client's protocol version if it is a known revision, else
// the run's.
Json initialize_result(const Json& initialize_request, const ServerDefaults& defaults);

// The complete response frame the default server sends to `message`, or nullopt when it
// sends none (notifications, responses, anything without a usable id).
std::optional<Json> default_answer(const Json& message, const ServerDefaults& defaults);

// {"jsonrpc":"2.0","id":id,"result":result} and its error counterpart.
Json make_result(const Json& id, Json result);
Json make_error(const Json& id, int code, const std::string& message);

}  // namespace mcpping
