// Streamable HTTP: POST, GET and DELETE on /mcp, with sessions (2025-03-26 to 2025-11-25) or
// without (the 2026-07-28 binding: POST only, request metadata headers).
#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "http_modern.hpp"
#include "http_routes.hpp"

namespace mcpping {

std::string StreamableRoutes::install_own(httplib::Server& server) {
  server.Get("/mcp", [this](const Req& req, Res& res) { handle_get(req, res); });
  server.Delete("/mcp", [this](const Req& req, Res& res) { handle_delete(req, res); });
  return "/mcp";
}

bool StreamableRoutes::modern_binding() {
  return p_.options.modern && p_.exchanges.with_sessions([](HttpSessions& s) { return s.empty(); });
}

bool StreamableRoutes::admit_modern_post(const Req& req, Res& res, const Json& message,
                                         const std::string& body) {
  // No session; every request POST mirrors its body into the request metadata headers.
  if (message.is_array()) {
    p_.recorder.reject(req, res,
                       Rejection{HttpRuleId::NotMessage,
                                 "a JSON array (a batch), but a 2026-07-28 POST carries one "
                                 "request or notification",
                                 rpc_error(-32600, "Invalid Request")},
                       {}, body);
    return false;
  }
  p_.recorder.broke(req, res, modern_header_problems(req, message), {}, body);  // none refuses
  if (is_routable_response(message)) {
    // "The client MUST NOT send JSON-RPC responses": the script's expect_no_response records
    // it; answered 202 as in the session-based revisions, so the client's session goes on
    // undisturbed.
    p_.transcript.event(
        "a JSON-RPC response POSTed in a 2026-07-28 session: accepted (202) and handed to the "
        "script");
  }
  return true;
}

bool StreamableRoutes::admit_post(const Req& req, Res& res, const Json& message,
                                  const std::string& body, bool initialize, bool modern,
                                  std::string& session) {
  if (modern ? !admit_modern_post(req, res, message, body)
             : !initialize && !admit_session(req, res, body, session))
    return false;
  // A batch exists in the session's negotiated revision or not at all (2025-03-26 only).
  if (refuse_bad_batch(req, res, message, body, session)) return false;
  return !p_.recorder.broke(
      req, res,
      rule_problems(req, message,
                    {HttpRuleId::PostAccept, HttpRuleId::ContentType, HttpRuleId::MixedBatch}),
      session, body);
}

void StreamableRoutes::answer_exchange(const Req& req, Res& res,
                                       const std::shared_ptr<Exchange>& ex, bool modern) {
  const auto mode = p_.exchanges.await_decided(ex);
  if (mode == Exchange::Mode::Json) {
    const auto answer = Json::parse(ex->json_body, nullptr, false);
    if (modern && answer.is_object() && answer.contains("error") && answer["error"].is_object() &&
        answer["error"].value("code", Json()) == Json(-32601)) {
      res.status = http_rule(HttpRuleId::UnknownMethod).status;
      p_.transcript.event("answered " + ex->key +
                          " with 404 Not Found: a 2026-07-28 server does not implement that "
                          "method");
    }
    res.set_content(ex->json_body, "application/json");
  } else if (mode == Exchange::Mode::Undecided) {
    res.status = 503;
    p_.transcript.event("request " + ex->key + " was never answered: 503 at shutdown");
  } else {
    serve_stream(req, res, ex->stream, [this, ex](bool) { p_.exchanges.release_connection(ex); });
  }
}

void StreamableRoutes::handle_post(const Req& req, Res& res, const httplib::ContentReader& reader) {
  const auto body = read_body(req, reader);
  if (refuse_unread_body(req, res, body, {})) return;
  // Whatever its Content-Type says (none, text/plain): the body is read as JSON, as RFC 9110
  // lets a recipient "examine the data to determine its type"; the script checks the label later.
  const auto message = Json::parse(body.bytes, nullptr, false);
  if (refuse_non_message(req, res, message, body.bytes, {})) return;
  const bool batch = message.is_array();
  const bool initialize = !batch && is_request(message) && method_of(message) == "initialize";
  const bool modern = !initialize && modern_binding();
  std::string session;
  if (!admit_post(req, res, message, body.bytes, initialize, modern, session)) return;

  const auto arrived = Clock::now();
  if (fault_post(req, res, message, body.bytes, session, arrived)) return;
  std::vector<Json> requests;  // what the POST's answer must carry a response to, in order
  for (const auto& element : batch ? message : Json::array({message}))
    if (is_request(element)) requests.push_back(element["id"]);
  if (requests.empty()) {
    res.status = 202;
    return hand_on(req, 202, session, message, body.bytes, arrived);
  }
  if (!admit_stream(req, res, session)) return;
  const auto ex = p_.exchanges.open(requests, initialize, batch, session);
  if (initialize) {
    res.set_header("Mcp-Session-Id", session);
    p_.inbox.push_event("session-started", {{"session", session}, {"connected", true}});
  }
  hand_on(req, 200, session, message, body.bytes, arrived);
  answer_exchange(req, res, ex, modern);
}

bool StreamableRoutes::resume_stream(const Req& req, Res& res, const std::string& session) {
  const auto last_event_id = req.get_header_value("Last-Event-ID");
  const auto [ex, stream] = p_.exchanges.resumable(session, last_event_id);
  if (!stream) return false;
  if (!admit_stream(req, res, session)) return true;
  const auto resumed = stream->resume(last_event_id);
  if (!resumed) {  // another GET resumed it first
    p_.exchanges.free_place();
    return false;
  }
  const auto& name = stream->name();
  Json meta{
      {"stream", name},
      {"session", session},
      {"last_event_id", last_event_id},
      {"waited_ms",
       std::chrono::duration<double, std::milli>(Clock::now() - resumed->disconnected_at).count()}};
  if (resumed->stream_last_event_id) meta["stream_last_event_id"] = *resumed->stream_last_event_id;
  if (resumed->retry_ms) meta["retry_ms"] = *resumed->retry_ms;
  p_.recorder.record(req, 200, session, {{"resumes", name}});
  p_.transcript.event(
      "GET with Last-Event-ID " + safe_dump(Json(shorten(last_event_id, 80))) + " resumes " + name +
          (resumed->replayed_bytes ? ": " + std::to_string(resumed->replayed_bytes) +
                                         " bytes written after that event are replayed first"
                                   : ": nothing to replay"),
      {{"stream", name}, {"replayed_bytes", resumed->replayed_bytes}});
  p_.inbox.push_event("stream-resumed", std::move(meta));
  if (ex) {
    serve_stream(req, res, stream, [this, ex = ex](bool) { p_.exchanges.release_connection(ex); });
  } else {
    serve_listening(req, res, stream, session);
  }
  return true;
}

bool StreamableRoutes::admit_session_request(const Req& req, Res& res, std::string& session) {
  if (modern_binding()) {
    // RFC 9110: a 405 "MUST generate an Allow header field".
    res.set_header("Allow", "POST");
    p_.recorder.reject(
        req, res,
        Rejection{HttpRuleId::ModernGetOrDelete,
                  req.method == "GET" ? "the 2026-07-28 binding has no GET stream"
                                      : "the 2026-07-28 binding has no session to delete"},
        {});
    return false;
  }
  return admit_session(req, res, {}, session);
}

bool StreamableRoutes::admit_session(const Req& req, Res& res, const std::string& body,
                                     std::string& session) {
  const auto checked = p_.exchanges.with_sessions([&](HttpSessions& s) { return s.check(req); });
  session = checked.session;
  return !p_.recorder.broke(req, res, checked.broken, session, body);
}

bool StreamableRoutes::replace_listening(const Req& req, Res& res, const std::string& session,
                                         Json& meta) {
  const bool replaced = p_.exchanges.with_sessions([&](HttpSessions& sessions) {
    auto& s = sessions.at(session);
    if (!s.stream || s.stream->ended()) return true;
    const auto old = s.stream->abandon();
    if (!old) return false;
    meta["disconnected"].push_back(s.stream->name());
    meta["reconnects"] = s.stream->name();
    meta["waited_ms"] =
        std::chrono::duration<double, std::milli>(Clock::now() - old->disconnected_at).count();
    if (old->stream_last_event_id) meta["stream_last_event_id"] = *old->stream_last_event_id;
    if (old->retry_ms) meta["retry_ms"] = *old->retry_ms;
    s.stream.reset();
    return true;
  });
  if (replaced) return true;
  p_.recorder.reject(
      req, res,
      Rejection{HttpRuleId::GetStreamOpen, "a GET stream is already open for this session"},
      session);
  meta["status"] = 409;
  p_.inbox.push_event("get-stream-refused", std::move(meta));
  return false;
}

void StreamableRoutes::handle_get(const Req& req, Res& res) {
  std::string session;
  if (!admit_session_request(req, res, session)) return;
  if (p_.recorder.broke(req, res, rule_problems(req, Json(), {HttpRuleId::GetAccept}), session))
    return;
  // 2025-11-25: "Resumption is always via HTTP GET with Last-Event-ID."
  if (req.has_header("Last-Event-ID") && resume_stream(req, res, session)) return;
  // A GET that resumed nothing, with the streams it could have resumed: await_resume names
  // it in its evidence. The listening stream the server disconnected, reconnected without
  // resuming it, gives way to a fresh stream, as a lenient server serves a client that starts
  // afresh.
  Json meta{{"session", session}, {"disconnected", p_.exchanges.disconnected(session)}};
  if (req.has_header("Last-Event-ID"))
    meta["last_event_id"] = req.get_header_value("Last-Event-ID");
  if (!replace_listening(req, res, session, meta) || !admit_stream(req, res, session)) return;
  auto stream = std::make_shared<SseStream>("get");
  p_.exchanges.with_sessions([&](HttpSessions& s) { s.at(session).stream = stream; });
  p_.recorder.record(req, 200, session,
                     meta.contains("reconnects")
                         ? Json{{"note",
                                 "reconnects the listening stream the server disconnected, "
                                 "without resuming it: a fresh stream replaces it"}}
                         : Json::object());
  meta["stream"] = "get";
  meta["connected"] = true;
  p_.inbox.push_event("get-stream-opened", std::move(meta));
  serve_listening(req, res, stream, session);
}

void StreamableRoutes::handle_delete(const Req& req, Res& res) {
  std::string session;
  if (!admit_session_request(req, res, session)) return;
  const bool connected = p_.exchanges.delete_session(session);
  res.status = 200;
  p_.recorder.record(req, 200, session, {{"note", "session deleted"}});
  p_.inbox.push_event("session-deleted", {{"session", session}, {"connected", connected}});
}

}  // namespace mcpping
