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
  latest_ = id;
  return id;
}

std::string HttpSessions::create_legacy(std::shared_ptr<SseStream> stream) {
  auto id = next_id("legacy-");
  sessions_[id].id = id;
  sessions_[id].stream = std::move(stream);
  legacy_session_ = id;
  return id;
}

SessionCheck HttpSessions::check(const httplib::Request& req) const {
  SessionCheck out;
  if (!req.has_header("Mcp-Session-Id")) {
    // Lenient: a request without the header belongs to the latest session, if it is live.
    const auto latest = sessions_.find(latest_);
    if (latest != sessions_.end() && !latest->second.deleted) out.session = latest_;
    if (sessions_.empty()) {
      out.broken.push_back(Rejection{HttpRuleId::BeforeSession, "no session exists yet",
                                     rpc_error(-32000, "Bad Request: Server not initialized")});
      return out;
    }
    if (out.session.empty()) {
      out.broken.push_back(Rejection{HttpRuleId::UnknownSession,
                                     "no Mcp-Session-Id, and the latest session was deleted",
                                     rpc_error(-32001, "Session not found")});
      return out;
    } else {
      out.broken.push_back(Rejection{HttpRuleId::NoSessionHeader, "no Mcp-Session-Id header"});
    }
  } else {
    const auto id = req.get_header_value("Mcp-Session-Id");
    const auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.deleted) {
      out.broken.push_back(Rejection{HttpRuleId::UnknownSession,
                                     "unknown or deleted session \"" + shorten(id, 80) + "\"",
                                     rpc_error(-32001, "Session not found")});
      return out;
    }
    out.session = id;
  }
  const auto& negotiated = sessions_.at(out.session).protocol_version;
  const auto from = revision_index("2025-06-18");
  const auto index = negotiated ? revision_index(*negotiated) : std::nullopt;
  if (index && from && *index >= *from) {
    if (!req.has_header("MCP-Protocol-Version")) {
      out.broken.push_back(
          Rejection{HttpRuleId::ProtocolVersion,
                    "no MCP-Protocol-Version header (negotiated " + *negotiated + ")"});
    } else if (const auto sent = req.get_header_value("MCP-Protocol-Version");
               sent != *negotiated) {
      out.broken.push_back(
          Rejection{HttpRuleId::ProtocolVersion,
                    "MCP-Protocol-Version " + shorten(sent, 80) + ", negotiated " + *negotiated});
    }
  }
  return out;
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
