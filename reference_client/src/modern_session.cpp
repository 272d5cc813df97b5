#include "modern_session.hpp"

#include <array>

namespace mcp::modern {

namespace {

constexpr std::array<std::string_view, 1> kModernVersions = {"2026-07-28"};

}  // namespace

bool is_modern_version(std::string_view version) {
  for (const auto known : kModernVersions)
    if (known == version) return true;
  return false;
}

nlohmann::json with_request_meta(nlohmann::json params, const RequestMeta& meta) {
  if (!params.is_object()) params = nlohmann::json::object();
  auto& fields = params["_meta"];
  if (!fields.is_object()) fields = nlohmann::json::object();
  fields["io.modelcontextprotocol/protocolVersion"] = meta.protocol_version;
  fields["io.modelcontextprotocol/clientCapabilities"] = meta.client_capabilities;
  if (!meta.client_info.is_null()) fields["io.modelcontextprotocol/clientInfo"] = meta.client_info;
  return params;
}

std::optional<ProbeOutcome> probe_outcome(const Error& error) {
  if (error.code() == errc::timeout) return ProbeOutcome::legacy;
  if (error.code() != errc::rpc_error || !error.rpc_code()) return std::nullopt;
  switch (*error.rpc_code()) {
    case unsupported_protocol_version:
    case missing_required_client_capability:
    case header_mismatch:
      return ProbeOutcome::modern;
    default:
      // "The fallback MUST NOT be keyed to one specific error code".
      return ProbeOutcome::legacy;
  }
}

std::optional<std::string> choose_version(const nlohmann::json& supported,
                                          const std::string& preferred) {
  if (!supported.is_array()) return std::nullopt;
  for (const auto& v : supported)
    if (v.is_string() && v.get<std::string>() == preferred && is_modern_version(preferred))
      return preferred;
  for (const auto& v : supported)
    if (v.is_string() && is_modern_version(v.get<std::string>())) return v.get<std::string>();
  return std::nullopt;
}

}  // namespace mcp::modern
