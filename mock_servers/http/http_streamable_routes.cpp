// Streamable HTTP: POST, GET and DELETE on /mcp, with sessions (2025-03-26 to 2025-11-25) or
// without (the 2026-07-28 binding: POST only, request metadata headers).
#include <algorithm>
#include <cctype>

#include "core/jsonrpc.hpp"
#include "core/scenario.hpp"
#include "core/text.hpp"
#include "http/http_channel.hpp"
#include "http/http_modern.hpp"

namespace mcpping {

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string media_type(const std::string& content_type) {
  auto type = lower(content_type.substr(0, content_type.find(';')));
  const auto first = type.find_first_not_of(" \t");
  const auto last = type.find_last_not_of(" \t");
  return first == std::string::npos ? std::string() : type.substr(first, last - first + 1);
}

}  // namespace

std::optional<Rejection> HttpChannel::check_batch(const Json& batch, const std::string& session) {
  std::optional<std::string> version;
  {
    const std::lock_guard lock(mutex_);
    version = sessions_.negotiated(session);
  }
  if (!version || !revision_has_batches(*version)) {
    return Rejection{HttpRuleId::NotMessage,
                     "a JSON array (a batch), but batches exist only in revision 2025-03-26 "
                     "(negotiated: " +
                         version.value_or("none") + ")",
                     rpc_error(-32600, "Invalid Request")};
  }
  if (auto problem = batch_problem(batch, /*mixed_ok=*/true)) {
    return Rejection{
        *problem == kBatchedInitialize ? HttpRuleId::BatchedInitialize : HttpRuleId::BadBatch,
        "an invalid batch: " + *problem, rpc_error(-32600, "Invalid Request")};
  }
  return std::nullopt;
}

std::optional<Json> HttpChannel::post_message(const httplib::Request& req, httplib::Response& res,
                                              const std::string& body) {
  // Whatever its Content-Type says (none, text/plain): the body is read as JSON, as RFC 9110
  // lets a recipient "examine the data to determine its type"; the label is judged later.
  auto message = Json::parse(body, nullptr, false);
  if (message.is_discarded()) {
    reject(req, res,
           Rejection{HttpRuleId::NotJson, "the body is not JSON", rpc_error(-32700, "Parse error")},
           {}, body);
    return std::nullopt;
  }
  if (!message.is_array() && !is_single_message(message)) {
    reject(req, res,
           Rejection{HttpRuleId::NotMessage, "not a JSON-RPC request, notification or response",
                     rpc_error(-32600, "Invalid Request")},
           {}, body);
    return std::nullopt;
  }
  return message;
}

bool HttpChannel::admit_modern_post(const httplib::Request& req, httplib::Response& res,
                                    const Json& message, const std::string& body) {
  // No session; every request POST mirrors its body into the request metadata headers.
  if (message.is_array()) {
    reject(req, res,
           Rejection{HttpRuleId::NotMessage,
                     "a JSON array (a batch), but a 2026-07-28 POST carries one request "
                     "or notification",
                     rpc_error(-32600, "Invalid Request")},
           {}, body);
    return false;
  }
  for (const auto& broken : modern_header_problems(req, message))
    broke(req, res, broken, {}, body);  // none of them refuses
  if (is_routable_response(message)) {
    // "The client MUST NOT send JSON-RPC responses": the script's expect_no_response judges
    // it; answered 202 as in the session-based revisions, so the client's session goes on
    // undisturbed.
    transcript_.event(
        "a JSON-RPC response POSTed in a 2026-07-28 session: accepted (202) and handed to the "
        "script");
  }
  return true;
}

bool HttpChannel::admit_post(const httplib::Request& req, httplib::Response& res,
                             const Json& message, const std::string& body, bool initialize,
                             bool modern, std::string& session) {
  const bool batch = message.is_array();
  if (modern) {
    if (!admit_modern_post(req, res, message, body)) return false;
  } else if (!initialize) {
    const auto checked = check_session(req);
    session = checked.session;
    for (const auto& broken : checked.broken)
      if (broke(req, res, broken, session, body)) return false;
  }
  // A batch exists in the session's negotiated revision or not at all (2025-03-26 only).
  if (batch) {
    if (auto refused = check_batch(message, session)) {
      reject(req, res, *refused, session, body);
      return false;
    }
  }
  const auto accept = lower(req.get_header_value("Accept"));
  if (accept.find("application/json") == std::string::npos ||
      accept.find("text/event-stream") == std::string::npos) {
    if (broke(req, res,
              Rejection{HttpRuleId::PostAccept,
                        "Accept does not list application/json and text/event-stream"},
              session, body))
      return false;
  }
  if (media_type(req.get_header_value("Content-Type")) != "application/json") {
    const auto note =
        req.has_header("Content-Type") ? "Content-Type is not application/json" : "no Content-Type";
    if (broke(req, res, Rejection{HttpRuleId::ContentType, note}, session, body)) return false;
  }
  // Lenient: responses batched with requests or notifications fit none of the three forms,
  // but each can be processed.
  if (batch) {
    if (auto mixed = batch_problem(message)) {
      if (broke(req, res, Rejection{HttpRuleId::MixedBatch, "an invalid batch: " + *mixed}, session,
                body))
        return false;
    }
  }
  return true;
}

std::shared_ptr<HttpChannel::Exchange> HttpChannel::open_exchange(const std::vector<Json>& requests,
                                                                  bool initialize, bool batch,
                                                                  std::string& session) {
  auto ex = std::make_shared<Exchange>();
  ex->id = requests.front();
  ex->key = safe_dump(ex->id);
  for (const auto& id : requests) ex->open.insert(safe_dump(id));
  ex->initialize = initialize;
  const std::lock_guard lock(mutex_);
  if (initialize) session = sessions_.create();
  ex->session = session;
  // A batch's responses go on a stream, one event each ("The server MUST either return
  // Content-Type: text/event-stream ... or Content-Type: application/json").
  if (options_.post_always_sse || batch) decide_sse_locked(*ex);
  pending_.push_back(ex);
  return ex;
}

void HttpChannel::answer_exchange(const httplib::Request& req, httplib::Response& res,
                                  const std::shared_ptr<Exchange>& ex, bool modern) {
  std::unique_lock lock(mutex_);
  decided_.wait_until(lock, options_.deadline + std::chrono::seconds(3),
                      [&] { return ex->mode != Exchange::Mode::Undecided || stopping_; });
  if (ex->mode == Exchange::Mode::Json) {
    --open_streams_;
    lock.unlock();
    // 2026-07-28: "If the server does not implement the requested RPC method, it MUST respond
    // with 404 Not Found and a JSON-RPC error with code -32601 (Method not found)".
    const auto answer = Json::parse(ex->json_body, nullptr, false);
    if (modern && answer.is_object() && answer.contains("error") && answer["error"].is_object() &&
        answer["error"].value("code", Json()) == Json(-32601)) {
      res.status = 404;
      transcript_.event("answered " + ex->key +
                        " with 404 Not Found: a 2026-07-28 server does not implement that "
                        "method");
    }
    res.set_content(ex->json_body, "application/json");
    return;
  }
  if (ex->mode == Exchange::Mode::Undecided) {
    pending_.remove(ex);
    --open_streams_;
    lock.unlock();
    res.status = 503;
    transcript_.event("request " + ex->key + " was never answered: 503 at shutdown");
    return;
  }
  auto stream = ex->stream;
  lock.unlock();
  serve_stream(req, res, stream, [this, ex](bool) { release_exchange_connection(ex); });
}

void HttpChannel::handle_post(const httplib::Request& req, httplib::Response& res,
                              const httplib::ContentReader& reader) {
  const auto body = read_body(req, reader);
  if (refuse_unread_body(req, res, body, {})) return;
  const auto message = post_message(req, res, body.bytes);
  if (!message) return;
  const bool batch = message->is_array();
  const bool initialize = !batch && is_request(*message) && method_of(*message) == "initialize";
  const bool modern = !initialize && modern_binding();
  std::string session;
  if (!admit_post(req, res, *message, body.bytes, initialize, modern, session)) return;

  const auto arrived = Clock::now();
  if (fault_post(req, res, *message, body.bytes, session, arrived)) return;
  std::vector<Json> requests;  // what the POST's answer must carry a response to, in order
  for (const auto& element : batch ? *message : Json::array({*message}))
    if (is_request(element)) requests.push_back(element["id"]);
  if (requests.empty()) {
    res.status = 202;
    record_http(req, 202, session);
    return push_messages(*message, body.bytes, facts(req, 202, session), arrived);
  }
  if (!admit_stream(req, res, session)) return;
  const auto ex = open_exchange(requests, initialize, batch, session);
  if (initialize) {
    res.set_header("Mcp-Session-Id", session);
    push_event("session-started", {{"session", session}, {"connected", true}});
  }
  record_http(req, 200, session);
  push_messages(*message, body.bytes, facts(req, 200, session), arrived);
  answer_exchange(req, res, ex, modern);
}

bool HttpChannel::resume_stream(const httplib::Request& req, httplib::Response& res,
                                const std::string& session) {
  const auto last_event_id = req.get_header_value("Last-Event-ID");
  std::shared_ptr<Exchange> ex;
  std::shared_ptr<SseStream> stream;
  {
    const std::lock_guard lock(mutex_);
    // Event ids are unique within a session ("globally unique across all streams within
    // that session"); should a script reuse one, the latest stream that wrote it wins.
    for (const auto& e : pending_) {
      if (e->session == session && e->stream && e->stream->disconnected() &&
          e->stream->wrote_event(last_event_id))
        ex = e;
    }
    // "This mechanism applies regardless of how the original stream was initiated (via POST
    // or GET)": the listening stream the server disconnected resumes the same way.
    const auto& listening = sessions_.at(session).stream;
    if (ex) {
      stream = ex->stream;
    } else if (listening && listening->disconnected() && listening->wrote_event(last_event_id)) {
      stream = listening;
    }
  }
  if (!stream) return false;
  if (!admit_stream(req, res, session)) return true;
  const auto resumed = stream->resume(last_event_id);
  if (!resumed) {  // another GET resumed it first
    const std::lock_guard lock(mutex_);
    --open_streams_;
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
  record_http(req, 200, session, {{"resumes", name}});
  transcript_.event(
      "GET with Last-Event-ID " + safe_dump(Json(shorten(last_event_id, 80))) + " resumes " + name +
          (resumed->replayed_bytes ? ": " + std::to_string(resumed->replayed_bytes) +
                                         " bytes written after that event are replayed first"
                                   : ": nothing to replay"),
      {{"stream", name}, {"replayed_bytes", resumed->replayed_bytes}});
  push_event("stream-resumed", std::move(meta));
  if (ex) {
    serve_stream(req, res, stream, [this, ex](bool) { release_exchange_connection(ex); });
  } else {
    serve_stream(req, res, stream, [this, stream, session](bool disconnected) {
      release_listening_stream(stream, session, "get", disconnected);
    });
  }
  return true;
}

void HttpChannel::handle_get(const httplib::Request& req, httplib::Response& res) {
  if (refuse_in_modern_binding(req, res)) return;
  const auto checked = check_session(req);
  const std::string& session = checked.session;
  for (const auto& broken : checked.broken)
    if (broke(req, res, broken, session)) return;
  if (lower(req.get_header_value("Accept")).find("text/event-stream") == std::string::npos) {
    if (broke(req, res, Rejection{HttpRuleId::GetAccept, "Accept does not list text/event-stream"},
              session))
      return;
  }
  // 2025-11-25: "Resumption is always via HTTP GET with Last-Event-ID."
  if (req.has_header("Last-Event-ID") && resume_stream(req, res, session)) return;
  // A GET that resumed nothing, with the streams it could have resumed: await_resume names
  // it in its evidence.
  Json meta{{"session", session}, {"disconnected", Json::array()}};
  if (req.has_header("Last-Event-ID"))
    meta["last_event_id"] = req.get_header_value("Last-Event-ID");
  {
    const std::lock_guard lock(mutex_);
    for (const auto& ex : pending_)
      if (ex->session == session && ex->stream && ex->stream->disconnected())
        meta["disconnected"].push_back(ex->stream->name());
    auto& s = sessions_.at(session);
    if (s.stream && !s.stream->ended()) {
      // The listening stream the server disconnected, reconnected without resuming it: a
      // fresh stream replaces it, as a lenient server serves a client that starts afresh.
      if (const auto old = s.stream->abandon()) {
        meta["disconnected"].push_back(s.stream->name());
        meta["reconnects"] = s.stream->name();
        meta["waited_ms"] =
            std::chrono::duration<double, std::milli>(Clock::now() - old->disconnected_at).count();
        if (old->stream_last_event_id) meta["stream_last_event_id"] = *old->stream_last_event_id;
        if (old->retry_ms) meta["retry_ms"] = *old->retry_ms;
        s.stream.reset();
      } else {
        res.status = 409;
        record_http(req, 409, session, {{"note", "a GET stream is already open for this session"}});
        meta["status"] = 409;
        push_event("get-stream-refused", std::move(meta));
        return;
      }
    }
  }
  if (!admit_stream(req, res, session)) return;
  auto stream = std::make_shared<SseStream>("get");
  {
    const std::lock_guard lock(mutex_);
    sessions_.at(session).stream = stream;
  }
  record_http(req, 200, session,
              meta.contains("reconnects")
                  ? Json{{"note",
                          "reconnects the listening stream the server disconnected, "
                          "without resuming it: a fresh stream replaces it"}}
                  : Json::object());
  meta["stream"] = "get";
  meta["connected"] = true;
  push_event("get-stream-opened", std::move(meta));
  serve_stream(req, res, stream, [this, stream, session](bool disconnected) {
    release_listening_stream(stream, session, "get", disconnected);
  });
}

void HttpChannel::handle_delete(const httplib::Request& req, httplib::Response& res) {
  if (refuse_in_modern_binding(req, res)) return;
  const auto checked = check_session(req);
  const std::string& session = checked.session;
  for (const auto& broken : checked.broken)
    if (broke(req, res, broken, session)) return;
  Json meta{{"session", session}};
  {
    const std::lock_guard lock(mutex_);
    auto& s = sessions_.at(session);
    s.deleted = true;
    if (s.stream) s.stream->push({}, true);  // ends the GET stream cleanly
    // Nobody can resume these any more: they end like POSTs the client closed (a write
    // waiting on one fails at once).
    pending_.remove_if([&](const std::shared_ptr<Exchange>& ex) {
      if (ex->session != session || !ex->stream || !ex->stream->disconnected()) return false;
      ex->stream->stop();
      return true;
    });
    meta["connected"] = sessions_.connected(options_.legacy);
  }
  res.status = 200;
  record_http(req, 200, session, {{"note", "session deleted"}});
  push_event("session-deleted", std::move(meta));
}

}  // namespace mcpping
