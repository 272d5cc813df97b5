// Legacy HTTP+SSE (2024-11-05): GET /sse opens the stream, POST /message?sessionId= carries
// client messages.
#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "http_routes.hpp"
#include "sse_framing.hpp"

namespace mcpping {

std::string LegacyRoutes::install_own(httplib::Server& server) {
  server.Get("/sse", [this](const Req& req, Res& res) { handle_get(req, res); });
  return "/message";
}

void LegacyRoutes::handle_get(const Req& req, Res& res) {
  if (!admit_stream(req, res, {})) return;
  auto stream = std::make_shared<SseStream>("sse");
  const auto session =
      p_.exchanges.with_sessions([&](HttpSessions& s) { return s.create(stream); });
  const auto endpoint = "/message?sessionId=" + session;
  SseFraming framing;
  framing.event = "endpoint";
  stream->push({sse_event(endpoint, framing)}, false);
  p_.recorder.record(req, 200, session);
  p_.transcript.host_record(
      "sse", {{"stream", "sse"}, {"what", "event"}, {"event", "endpoint"}, {"data", endpoint}},
      "endpoint event: " + endpoint);
  p_.inbox.push_event("get-stream-opened",
                      {{"stream", "sse"}, {"session", session}, {"connected", true}});
  serve_listening(req, res, stream, session);
}

bool LegacyRoutes::admit_post(const Req& req, Res& res, const Json& message,
                              const std::string& body, const std::string& session) {
  auto& recorder = p_.recorder;
  if (!req.has_param("sessionId")) {
    recorder.reject(req, res, Rejection{HttpRuleId::NoSessionParam, "no sessionId query parameter"},
                    {}, body);
    return false;
  }
  if (!p_.exchanges.with_sessions([&](HttpSessions& s) { return s.contains(session); })) {
    recorder.reject(req, res, Rejection{HttpRuleId::UnknownLegacySession, "unknown session"},
                    session);
    return false;
  }
  if (refuse_non_message(req, res, message, body, session)) return false;
  // A session that negotiated 2025-03-26 "MUST support receiving JSON-RPC batches", on
  // whatever transport it runs: taken as on Streamable HTTP, each element a message.
  if (refuse_bad_batch(req, res, message, body, session)) return false;
  return !recorder.broke(req, res, rule_problems(req, message, {HttpRuleId::MixedBatch}), session,
                         body);
}

void LegacyRoutes::handle_post(const Req& req, Res& res, const httplib::ContentReader& reader) {
  const auto body = read_body(req, reader);
  const auto session = req.get_param_value("sessionId");
  if (refuse_unread_body(req, res, body, session)) return;
  const auto message = Json::parse(body.bytes, nullptr, false);
  if (!admit_post(req, res, message, body.bytes, session)) return;
  // An initialize's answer goes on the SSE stream; the version it settles is noted there.
  if (!message.is_array() && is_request(message) && method_of(message) == "initialize")
    p_.exchanges.expect_legacy_initialize(session, safe_dump(message["id"]));
  const auto arrived = Clock::now();
  if (fault_post(req, res, message, body.bytes, session, arrived)) return;
  res.status = 202;
  hand_on(req, 202, session, message, body.bytes, arrived);
}

}  // namespace mcpping
