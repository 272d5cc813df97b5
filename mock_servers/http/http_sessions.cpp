#include "http/http_sessions.hpp"

#include <unistd.h>

#include "core/scenario.hpp"
#include "core/text.hpp"

namespace mcpping {

std::string HttpSessions::next_id(const std::string& prefix) {
  return prefix + std::to_string(++counter_) + "-" + std::to_string(static_cast<long>(::getpid()));
}

std::string HttpSessions::create() {
  auto id = next_id("mcp-session-");
  sessions_[id].id = id;
  return id;
}

std::string HttpSessions::create_legacy(std::shared_ptr<SseStream> stream) {
  auto id = next_id("legacy-");
  sessions_[id].id = id;
  sessions_[id].stream = std::move(stream);
  legacy_session_ = id;
  return id;
}

std::optional<Rejection> HttpSessions::check(const httplib::Request& req,
                                             std::string& session) const {
  if (!req.has_header("Mcp-Session-Id"))
    return Rejection{HttpRuleId::NoSessionHeader, "no Mcp-Session-Id header",
                     rpc_error(-32600, "Bad Request: Mcp-Session-Id header is required")};
  const auto id = req.get_header_value("Mcp-Session-Id");
  const auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.deleted)
    return Rejection{HttpRuleId::UnknownSession,
                     "unknown or deleted session \"" + shorten(id, 80) + "\"",
                     rpc_error(-32001, "Session not found")};
  session = id;
  const auto& negotiated = it->second.protocol_version;
  const auto from = revision_index("2025-06-18");
  const auto index = negotiated ? revision_index(*negotiated) : std::nullopt;
  if (index && from && *index >= *from) {
    if (!req.has_header("MCP-Protocol-Version"))
      return Rejection{HttpRuleId::ProtocolVersion,
                       "no MCP-Protocol-Version header (negotiated " + *negotiated + ")",
                       rpc_error(-32600, "Bad Request: MCP-Protocol-Version header is required")};
    const auto sent = req.get_header_value("MCP-Protocol-Version");
    if (sent != *negotiated)
      return Rejection{HttpRuleId::ProtocolVersion,
                       "MCP-Protocol-Version " + shorten(sent, 80) + ", negotiated " + *negotiated,
                       rpc_error(-32600, "Bad Request: unsupported MCP-Protocol-Version")};
  }
  return std::nullopt;
}

void HttpSessions::note_initialize_result(const std::string& session,
                                          const nlohmann::json& message) {
  if (!message.contains("result") || !message["result"].is_object()) return;
  const auto& result = message["result"];
  if (result.contains("protocolVersion") && result["protocolVersion"].is_string())
    sessions_[session].protocol_version = result["protocolVersion"].get<std::string>();
}

bool HttpSessions::connected(bool legacy) const {
  for (const auto& [id, s] : sessions_) {
    if (legacy ? (s.stream && !s.stream->ended()) : !s.deleted) return true;
  }
  return false;
}

std::shared_ptr<SseStream> HttpSessions::latest_get_stream() const {
  std::shared_ptr<SseStream> found;
  for (const auto& [id, s] : sessions_)
    if (!s.deleted && s.stream && !s.stream->ended()) found = s.stream;
  return found;
}

std::shared_ptr<SseStream> HttpSessions::legacy_stream() const {
  const auto it = sessions_.find(legacy_session_);
  if (it == sessions_.end() || !it->second.stream || it->second.stream->ended()) return nullptr;
  return it->second.stream;
}

void HttpSessions::stop_streams() {
  for (auto& [id, s] : sessions_)
    if (s.stream) s.stream->stop();
}

}  // namespace mcpping
