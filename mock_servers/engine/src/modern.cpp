#include "engine/modern.hpp"

#include <algorithm>
#include <set>

#include "core/scenario.hpp"
#include "core/text.hpp"

namespace mcpping {

namespace {

// The request's params._meta, or null.
const Json* meta_of(const Json& request) {
  const auto params = request.find("params");
  if (params == request.end() || !params->is_object()) return nullptr;
  const auto meta = params->find("_meta");
  return meta != params->end() && meta->is_object() ? &*meta : nullptr;
}

}  // namespace

std::vector<std::string> supported_modern_revisions() {
  std::vector<std::string> out;
  for (const auto& revision : known_revisions())
    if (revision_is_modern(revision)) out.push_back(revision);
  return out;
}

Json discover_result(const ServerDefaults& defaults) {
  return modern_result(Json{{"supportedVersions", supported_modern_revisions()},
                            {"capabilities", defaults.capabilities}},
                       defaults, "server/discover");
}

bool cacheable_result(const std::string& method) {
  // The 2026-07-28 schema's results that require "cacheScope" and "ttlMs" (CacheableResult):
  // DiscoverResult, ListToolsResult, ListPromptsResult, ListResourcesResult,
  // ListResourceTemplatesResult, ReadResourceResult.
  static const std::set<std::string> methods = {"server/discover", "tools/list",
                                                "prompts/list",    "resources/list",
                                                "resources/read",  "resources/templates/list"};
  return methods.count(method) > 0;
}

Json modern_result(Json result, const ServerDefaults& defaults, const std::string& method) {
  result["resultType"] = "complete";
  result["_meta"][kMetaServerInfo] = defaults.server_info;
  if (cacheable_result(method)) {
    // The mock's answers are re-fetched whenever needed, and shared with nobody.
    result["ttlMs"] = 0;
    result["cacheScope"] = "private";
  }
  return result;
}

std::optional<std::string> meta_protocol_version(const Json& request) {
  const auto* meta = meta_of(request);
  if (!meta) return std::nullopt;
  const auto version = meta->find(kMetaProtocolVersion);
  if (version == meta->end() || !version->is_string()) return std::nullopt;
  return version->get<std::string>();
}

std::vector<std::string> meta_problems(const Json& request) {
  const auto* meta = meta_of(request);
  if (!meta) return {"no params._meta"};
  std::vector<std::string> problems;
  const auto check = [&](const char* key, bool object) {
    const auto field = meta->find(key);
    if (field == meta->end()) {
      problems.push_back(std::string("no ") + key);
    } else if (object ? !field->is_object() : !field->is_string()) {
      problems.push_back(std::string(key) + " is " + safe_dump(*field) +
                         (object ? ", not an object" : ", not a string"));
    }
  };
  check(kMetaProtocolVersion, /*object=*/false);
  check(kMetaClientCapabilities, /*object=*/true);
  return problems;
}

std::optional<std::string> unsupported_meta_version(const Json& request) {
  const auto version = meta_protocol_version(request);
  const auto supported = supported_modern_revisions();
  if (!version || std::find(supported.begin(), supported.end(), *version) != supported.end())
    return std::nullopt;
  return std::string(kMetaProtocolVersion) + " \"" + *version +
         "\" is not a version the server supports (" + join(supported, ", ") + ")";
}

bool lacks_client_info(const Json& request) {
  const auto* meta = meta_of(request);
  return !meta || !meta->contains(kMetaClientInfo);
}

}  // namespace mcpping
