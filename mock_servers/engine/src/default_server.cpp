#include "engine/default_server.hpp"

#include <set>

#include "core/scenario.hpp"
#include "engine/modern.hpp"

namespace mcpping {

ServerDefaults server_defaults_from(const Json& resolved) {
  ServerDefaults d;
  const auto& server = resolved.at("server");
  d.server_info = server.at("server_info");
  d.capabilities = server.at("capabilities");
  d.tools = server.at("tools");
  d.revision = resolved.at("revision").get<std::string>();
  d.transport = resolved.value("transport", "");
  return d;
}

Json make_result(const Json& id, Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json make_error(const Json& id, int code, const std::string& message) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

bool default_service(const std::string& method) {
  static const std::set<std::string> methods = {
      "ping",         "tools/list",          "resources/list",  "resources/templates/list",
      "prompts/list", "completion/complete", "logging/setLevel"};
  return methods.count(method) > 0;
}

namespace {

// A request of a feature other than tools: the empty answer when the server declared the
// capability, nullopt (-32601) when it did not.
std::optional<Json> feature_result(const std::string& method, const Json& capabilities) {
  const auto declared = [&](const char* capability) {
    return capabilities.is_object() && capabilities.contains(capability);
  };
  if (method == "resources/list" && declared("resources"))
    return Json{{"resources", Json::array()}};
  if (method == "resources/templates/list" && declared("resources"))
    return Json{{"resourceTemplates", Json::array()}};
  if (method == "prompts/list" && declared("prompts")) return Json{{"prompts", Json::array()}};
  if (method == "completion/complete" && declared("completions"))
    return Json{{"completion", {{"values", Json::array()}}}};
  if (method == "logging/setLevel" && declared("logging")) return Json::object();
  return std::nullopt;
}

}  // namespace

Json initialize_result(const Json& request, const ServerDefaults& d) {
  std::string version = d.revision;
  const auto params = request.find("params");
  if (params != request.end() && params->is_object()) {
    const auto offered = params->find("protocolVersion");
    if (offered != params->end() && offered->is_string() &&
        revision_index(offered->get<std::string>())) {
      version = offered->get<std::string>();
    }
  }
  if (revision_is_modern(version)) version = latest_legacy_revision();
  version = nearest_revision_on(d.transport, version);
  return Json{{"protocolVersion", version},
              {"capabilities", d.capabilities},
              {"serverInfo", d.server_info}};
}

std::optional<Json> default_answer(const Json& message, const ServerDefaults& d, Era era) {
  if (!message.is_object()) return std::nullopt;
  const auto method = message.find("method");
  const auto id = message.find("id");
  if (method == message.end() || id == message.end()) return std::nullopt;
  if (!method->is_string()) return make_error(*id, -32600, "Invalid Request");
  const auto& name = method->get_ref<const std::string&>();
  if (era == Era::Modern) {
    if (name == "server/discover") return make_result(*id, discover_result(d));
    if (name == "ping" || name == "initialize") return make_error(*id, -32601, "Method not found");
    auto answer = default_answer(message, d, Era::Legacy);
    if (answer && answer->contains("result"))
      (*answer)["result"] = modern_result(std::move((*answer)["result"]), d, name);
    return answer;
  }
  if (name == "ping") return make_result(*id, Json::object());
  if (name == "initialize") return make_result(*id, initialize_result(message, d));
  if (name == "tools/list") return make_result(*id, Json{{"tools", d.tools}});
  if (name == "tools/call") {
    const auto params = message.find("params");
    if (params == message.end() || !params->is_object()) {
      return make_error(*id, -32602, "Invalid params: expected an object");
    }
    const auto tool = params->find("name");
    if (tool == params->end() || *tool != Json("echo")) {
      return make_error(*id, -32602,
                        "Unknown tool: " + (tool == params->end() ? "" : tool->dump()));
    }
    const auto args = params->find("arguments");
    if (args == params->end() || !args->is_object() || !args->contains("text") ||
        !(*args)["text"].is_string()) {
      return make_error(*id, -32602, "Invalid params: echo needs a string \"text\" argument");
    }
    return make_result(
        *id, Json{{"content", Json::array({{{"type", "text"}, {"text", (*args)["text"]}}})}});
  }
  if (auto result = feature_result(name, d.capabilities)) return make_result(*id, *result);
  return make_error(*id, -32601, "Method not found");
}

}  // namespace mcpping
