#include "http_sessions.hpp"

#include <unistd.h>

#include <regex>

#include "core/revision.hpp"
#include "core/text.hpp"

namespace mcpping {

std::string HttpSessions::create(std::shared_ptr<SseStream> legacy_stream) {
  const bool legacy = legacy_stream != nullptr;
  auto id = (legacy ? "legacy-" : "mcp-session-") + std::to_string(++counter_) + "-" +
            std::to_string(static_cast<long>(::getpid()));
  auto& session = sessions_[id];
  session.serial = counter_;
  session.stream = std::move(legacy_stream);
  (legacy ? legacy_session_ : latest_) = id;
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

// The MCP-Protocol-Version rule of a request in a session that negotiated `negotiated`: it
// applies when that revision has the header.
std::optional<Rejection> version_problem(const httplib::Request& req,
                                         const std::optional<std::string>& negotiated) {
  const auto revision = negotiated ? find_revision(*negotiated) : std::nullopt;
  if (!revision || !traits_of(*revision).protocol_version_header) return std::nullopt;
  if (!req.has_header("MCP-Protocol-Version"))
    return Rejection{HttpRuleId::ProtocolVersion,
                     "no MCP-Protocol-Version header (negotiated " + *negotiated + ")"};
  const auto sent = req.get_header_value("MCP-Protocol-Version");
  if (sent == *negotiated) return std::nullopt;
  // The client's rule on the value: "The protocol version sent by the client SHOULD be the one
  // negotiated during initialization". A well-formed version is that SHOULD missed, supported
  // or not: recorded, and the request goes on (a real server refuses an unsupported one with
  // 400, which would turn the SHOULD into a lost message). A value that is no version at all
  // is not "MCP-Protocol-Version: <protocol-version>": refused, as servers must.
  static const std::regex well_formed(R"(\d{4}-\d{2}-\d{2})");
  const auto header = "MCP-Protocol-Version " + shorten(sent, 80);
  const bool supported = revision_index(sent).has_value();
  if (supported || std::regex_match(sent, well_formed))
    return Rejection{HttpRuleId::OtherVersion,
                     header +
                         (supported ? ", a version this server supports, but the negotiated one is "
                                    : ", a version this server does not support (a real server "
                                      "answers 400), not the negotiated ") +
                         *negotiated};
  // As the TypeScript SDK's server answers it (webStandardStreamableHttp.js).
  return Rejection{
      HttpRuleId::UnsupportedVersion,
      header + ", not a protocol version (negotiated " + *negotiated + ")",
      rpc_error(-32000, "Bad Request: Unsupported protocol version: " + shorten(sent, 80) +
                            " (supported versions: " + join(known_revisions(), ", ") + ")")};
}

}  // namespace

SessionCheck HttpSessions::check(const httplib::Request& req) {
  SessionCheck out;
  if (!req.has_header("Mcp-Session-Id")) {
    if (sessions_.empty()) {
      out.broken.push_back(Rejection{HttpRuleId::BeforeSession, "no session exists yet",
                                     rpc_error(-32000, "Bad Request: Server not initialized")});
      return out;
    }
    // Lenient: a request without the header belongs to the latest session, if it is live.
    const auto latest = sessions_.find(latest_);
    if (latest == sessions_.end() || latest->second.gone()) {
      out.broken.push_back(Rejection{HttpRuleId::UnknownSession,
                                     "no Mcp-Session-Id, and the latest session is gone",
                                     rpc_error(-32001, "Session not found")});
      return out;
    }
    out.session = latest_;
    if (req.method == "GET" && !latest->second.client_went_on) {
      out.broken.push_back(Rejection{HttpRuleId::GetBeforeSessionId,
                                     "sent before the client had the initialize response (it "
                                     "has sent nothing since initialize)"});
      return out;  // nor could it know the negotiated protocol version
    }
    out.broken.push_back(Rejection{HttpRuleId::NoSessionHeader, "no Mcp-Session-Id header"});
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
  auto& session = sessions_.at(out.session);
  if (auto wrong = version_problem(req, session.protocol_version)) out.broken.push_back(*wrong);
  if (req.method != "GET") session.client_went_on = true;
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
