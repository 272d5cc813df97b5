// Legacy HTTP+SSE (2024-11-05): GET /sse opens the stream, POST /message?sessionId= carries
// client messages.
#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "http/http_channel.hpp"
#include "http/sse_framing.hpp"

namespace mcpping {

void HttpChannel::handle_legacy_get(const httplib::Request& req, httplib::Response& res) {
  if (!admit_stream(req, res, {})) return;
  auto stream = std::make_shared<SseStream>("sse");
  std::string session;
  {
    const std::lock_guard lock(mutex_);
    session = sessions_.create_legacy(stream);
  }
  SseFraming endpoint;
  endpoint.event = "endpoint";
  stream->push({sse_event("/message?sessionId=" + session, endpoint)}, false);
  record_http(req, 200, session);
  transcript_.host_record("sse",
                          {{"stream", "sse"},
                           {"what", "event"},
                           {"event", "endpoint"},
                           {"data", "/message?sessionId=" + session}},
                          "endpoint event: /message?sessionId=" + session);
  push_event("get-stream-opened", {{"stream", "sse"}, {"session", session}, {"connected", true}});
  serve_stream(req, res, stream, [this, stream, session](bool disconnected) {
    release_listening_stream(stream, session, "sse", disconnected);
  });
}

void HttpChannel::handle_legacy_post(const httplib::Request& req, httplib::Response& res,
                                     const httplib::ContentReader& reader) {
  const auto body = read_body(req, reader);
  const auto session = req.get_param_value("sessionId");
  if (refuse_unread_body(req, res, body, session)) return;
  if (!req.has_param("sessionId"))
    return reject(req, res, Rejection{HttpRuleId::NoSessionParam, "no sessionId query parameter"},
                  {}, body.bytes);
  {
    const std::lock_guard lock(mutex_);
    if (!sessions_.contains(session)) {
      res.status = 404;
      record_http(req, 404, session, {{"note", "unknown session"}});
      return;
    }
  }
  const auto message = Json::parse(body.bytes, nullptr, false);
  const bool batch = message.is_array();
  if (message.is_discarded() || (!batch && !is_single_message(message))) {
    const bool json = !message.is_discarded();
    return reject(req, res,
                  Rejection{json ? HttpRuleId::NotMessage : HttpRuleId::NotJson,
                            json ? "not a JSON-RPC request, notification or response"
                                 : "the body is not JSON",
                            rpc_error(json ? -32600 : -32700, "Invalid message")},
                  session, body.bytes);
  }
  if (batch) {
    // A session that negotiated 2025-03-26 "MUST support receiving JSON-RPC batches", on
    // whatever transport it runs: taken as on Streamable HTTP, each element a message.
    if (auto refused = check_batch(message, session))
      return reject(req, res, *refused, session, body.bytes);
    if (auto mixed = batch_problem(message)) {
      if (broke(req, res, Rejection{HttpRuleId::MixedBatch, "an invalid batch: " + *mixed}, session,
                body.bytes))
        return;
    }
  } else if (is_request(message) && method_of(message) == "initialize") {
    // Its answer goes on the SSE stream; the version it settles is noted there (route_locked).
    const std::lock_guard lock(mutex_);
    legacy_initialize_ = {session, safe_dump(message["id"])};
  }
  const auto arrived = Clock::now();
  if (fault_post(req, res, message, body.bytes, session, arrived)) return;
  res.status = 202;
  record_http(req, 202, session);
  push_messages(message, body.bytes, facts(req, 202, session), arrived);
}

}  // namespace mcpping
