#include "http_sessions.hpp"

#include <unistd.h>

#include <regex>

#include "core/revision.hpp"
#include "core/text.hpp"

namespace mcpping {

std::string HttpSessions::next_id(const std::string& prefix) {
  return prefix + std::to_string(++counter_) + "-" + std::to_string(static_cast<long>(::getpid()));
}

std::string HttpSessions::create() {
  auto id = next_id("mcp-session-");
  sessions_[id].id = id;
  sessions_[id].serial = counter_;
  latest_ = id;
  return id;
}

std::string HttpSessions::create_legacy(std::shared_ptr<SseStream> stream) {
  auto id = next_id("legacy-");
  sessions_[id].id = id;
  sessions_[id].serial = counter_;
  sessions_[id].stream = std::move(stream);
  legacy_session_ = id;
  return id;
}

namespace {

// Why a request that names `session` gets 404.
std::string gone_note(const std::string& id, const HttpSession* session) {
  const auto quoted = "\"" + shorten(id, 80) + "\"";
  if (!session) return "unknown session " + quoted;
  if (session->deleted) return "session " + quoted + " was deleted by the client";
  return "session " + quoted + " was ended by the server (" + session->ended + ")";
}

}  // namespace

SessionCheck HttpSessions::check(const httplib::Request& req) {
  SessionCheck out = check_session_and_version(req);
  if (req.method != "GET" && !out.session.empty()) sessions_[out.session].client_went_on = true;
  return out;
}

SessionCheck HttpSessions::check_session_and_version(const httplib::Request& req) const {
  SessionCheck out;
  if (!req.has_header("Mcp-Session-Id")) {
    // Lenient: a request without the header belongs to the latest session, if it is live.
    const auto latest = sessions_.find(latest_);
    if (latest != sessions_.end() && !latest->second.gone()) out.session = latest_;
    if (sessions_.empty()) {
      out.broken.push_back(Rejection{HttpRuleId::BeforeSession, "no session exists yet",
                                     rpc_error(-32000, "Bad Request: Server not initialized")});
      return out;
    }
    if (out.session.empty()) {
      out.broken.push_back(Rejection{HttpRuleId::UnknownSession,
                                     "no Mcp-Session-Id, and the latest session is gone",
                                     rpc_error(-32001, "Session not found")});
      return out;
    } else if (req.method == "GET" && !latest->second.client_went_on) {
      out.broken.push_back(Rejection{HttpRuleId::GetBeforeSessionId,
                                     "sent before the client had the initialize response (it "
                                     "has sent nothing since initialize)"});
      return out;  // nor could it know the negotiated protocol version
    } else {
      out.broken.push_back(Rejection{HttpRuleId::NoSessionHeader, "no Mcp-Session-Id header"});
    }
  } else {
    const auto id = req.get_header_value("Mcp-Session-Id");
    const auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.gone()) {
      out.broken.push_back(Rejection{HttpRuleId::UnknownSession,
                                     gone_note(id, it == sessions_.end() ? nullptr : &it->second),
                                     rpc_error(-32001, "Session not found")});
      return out;
    }
    out.session = id;
  }
  // The rule applies when the session negotiated a revision that has the header.
  const auto& negotiated = sessions_.at(out.session).protocol_version;
  const auto revision = negotiated ? find_revision(*negotiated) : std::nullopt;
  if (!revision || !traits_of(*revision).protocol_version_header) return out;
  if (!req.has_header("MCP-Protocol-Version")) {
    out.broken.push_back(
        Rejection{HttpRuleId::ProtocolVersion,
                  "no MCP-Protocol-Version header (negotiated " + *negotiated + ")"});
    return out;
  }
  const auto sent = req.get_header_value("MCP-Protocol-Version");
  if (sent == *negotiated) return out;
  // The client's rule on the value: "The protocol version sent by the client SHOULD be the one
  // negotiated during initialization". A well-formed version is that SHOULD missed, supported
  // or not: recorded, and the request goes on (a real server refuses an unsupported one with
  // 400, which would turn the SHOULD into a lost message). A value that is no version at all
  // is not "MCP-Protocol-Version: <protocol-version>": refused, as servers must.
  static const std::regex well_formed(R"(\d{4}-\d{2}-\d{2})");
  if (revision_index(sent)) {
    out.broken.push_back(Rejection{HttpRuleId::OtherVersion,
                                   "MCP-Protocol-Version " + shorten(sent, 80) +
                                       ", a version this server supports, but the negotiated one "
                                       "is " +
                                       *negotiated});
  } else if (std::regex_match(sent, well_formed)) {
    out.broken.push_back(Rejection{HttpRuleId::OtherVersion,
                                   "MCP-Protocol-Version " + sent +
                                       ", a version this server does not support (a real server "
                                       "answers 400), not the negotiated " +
                                       *negotiated});
  } else {
    // As the TypeScript SDK's server answers it (webStandardStreamableHttp.js).
    out.broken.push_back(Rejection{
        HttpRuleId::UnsupportedVersion,
        "MCP-Protocol-Version " + shorten(sent, 80) + ", not a protocol version (negotiated " +
            *negotiated + ")",
        rpc_error(-32000, "Bad Request: Unsupported protocol version: " + shorten(sent, 80) +
                              " (supported versions: " + supported_versions_text() + ")")});
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

std::optional<std::string> HttpSessions::negotiated(const std::string& session) const {
  const auto it = sessions_.find(session);
  if (it == sessions_.end()) return std::nullopt;
  return it->second.protocol_version;
}

bool HttpSessions::end(const std::string& session, const std::string& why) {
  const auto it = sessions_.find(session);
  if (it == sessions_.end() || it->second.gone()) return false;
  it->second.ended = why;
  return true;
}

bool HttpSessions::connected(bool legacy) const {
  for (const auto& [id, s] : sessions_) {
    if (legacy ? (s.stream && !s.stream->ended()) : !s.gone()) return true;
  }
  const auto latest = sessions_.find(latest_);
  return !legacy && latest != sessions_.end() && !latest->second.deleted &&
         !latest->second.ended.empty();
}

std::shared_ptr<SseStream> HttpSessions::latest_get_stream() const {
  const HttpSession* latest = nullptr;
  for (const auto& [id, s] : sessions_) {
    if (s.gone() || !s.stream || s.stream->ended()) continue;
    if (!latest || s.serial > latest->serial) latest = &s;
  }
  return latest ? latest->stream : nullptr;
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
