#include "http_routes.hpp"

#include <algorithm>

#include "core/jsonrpc.hpp"
#include "core/pattern.hpp"
#include "core/scenario.hpp"
#include "core/text.hpp"
#include "httplib_support.hpp"

namespace mcpping {

void PostFaults::arm(const PostFault& fault) {
  const std::lock_guard lock(mutex_);
  fault_ = fault;
}

std::optional<PostFault> PostFaults::take(const Json& message) {
  const std::lock_guard lock(mutex_);
  if (!fault_) return std::nullopt;
  const auto elements = message.is_array() ? message : Json::array({message});
  if (std::none_of(elements.begin(), elements.end(), [&](const Json& element) {
        return matches(fault_->pattern, element, fault_->captures);
      }))
    return std::nullopt;
  return std::exchange(fault_, std::nullopt);
}

void HttpRoutes::install(httplib::Server& server) {
  const auto post_path = install_own(server);
  server.Post(post_path, [this](const Req& req, Res& res, const httplib::ContentReader& reader) {
    handle_post(req, res, reader);
  });
  server.Post(post_path,
              [this](const Req& req, Res& res) { handle_post(req, res, empty_content_reader()); });
  auto other = [this, post_path](const Req& req, Res& res) {
    const auto rule = req.path == post_path ? HttpRuleId::MethodNotAllowed : HttpRuleId::NoSuchPath;
    res.status = http_rule(rule).status;
    p_.recorder.record(req, res.status, {},
                       {{"note", req.path == post_path ? "method not allowed" : "no such path"}});
    p_.recorder.refused_response(req, res.status, {}, req.body);
  };
  server.Get(".*", other);
  server.Post(".*", other);
  server.Delete(".*", other);
  server.Put(".*", other);
  server.Patch(".*", other);
}

PostBody HttpRoutes::read_body(const Req& req, const httplib::ContentReader& reader) {
  PostBody body;
  const auto cap = p_.options.max_body_bytes;
  bool too_large = false;
  const bool read = reader([&](const char* data, std::size_t n) {
    if (body.bytes.size() + n > cap) {
      too_large = true;
      return false;
    }
    body.bytes.append(data, n);
    return true;
  });
  // httplib itself refuses a Content-Length over the cap with 413 before reading.
  if (too_large ||
      (req.has_header("Content-Length") &&
       std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) > cap))
    body.status = PostBody::Status::kTooLarge;
  else if (!read)
    body.status = PostBody::Status::kCutShort;
  return body;
}

bool HttpRoutes::refuse_unread_body(const Req& req, Res& res, const PostBody& body,
                                    const std::string& session) {
  if (body.status == PostBody::Status::kWhole) return false;
  res.set_header("Connection", "close");
  // A body cut short is no message the client sent but one it never finished: nothing to
  // record, and no answer goes out (httplib closes a connection whose body it could not read).
  p_.recorder.reject(
      req, res,
      body.status == PostBody::Status::kTooLarge
          ? Rejection{HttpRuleId::BodyTooLarge,
                      "body over " + std::to_string(p_.options.max_body_bytes) + " bytes"}
          : Rejection{HttpRuleId::CutShort, "the connection ended after " +
                                                std::to_string(body.bytes.size()) +
                                                " bytes of the body: no message"},
      session);
  return true;
}

bool HttpRoutes::refuse_non_message(const Req& req, Res& res, const Json& message,
                                    const std::string& body, const std::string& session) {
  if (message.is_array() ||
      (message.is_object() &&
       (is_request(message) || is_notification(message) || is_routable_response(message))))
    return false;
  // Legacy answers both with one error message, Streamable HTTP with JSON-RPC's own.
  const bool json = !message.is_discarded();
  const bool legacy = p_.options.legacy;
  p_.recorder.reject(
      req, res,
      json ? Rejection{HttpRuleId::NotMessage, "not a JSON-RPC request, notification or response",
                       rpc_error(-32600, legacy ? "Invalid message" : "Invalid Request")}
           : Rejection{HttpRuleId::NotJson, "the body is not JSON",
                       rpc_error(-32700, legacy ? "Invalid message" : "Parse error")},
      session, body);
  return true;
}

bool HttpRoutes::refuse_bad_batch(const Req& req, Res& res, const Json& message,
                                  const std::string& body, const std::string& session) {
  if (!message.is_array()) return false;
  const auto version =
      p_.exchanges.with_sessions([&](HttpSessions& s) { return s.negotiated(session); });
  const bool batches = version && revision_has_batches(*version);
  const auto problem = batch_problem(message, /*mixed_ok=*/true);
  if (batches && !problem) return false;
  p_.recorder.reject(
      req, res,
      !batches ? Rejection{HttpRuleId::NotMessage,
                           "a JSON array (a batch), but batches exist only in revision 2025-03-26 "
                           "(negotiated: " +
                               version.value_or("none") + ")",
                           rpc_error(-32600, "Invalid Request")}
               : Rejection{*problem == kBatchedInitialize ? HttpRuleId::BatchedInitialize
                                                          : HttpRuleId::BadBatch,
                           "an invalid batch: " + *problem, rpc_error(-32600, "Invalid Request")},
      session, body);
  return true;
}

bool HttpRoutes::fault_post(const Req& req, Res& res, const Json& message, const std::string& body,
                            const std::string& session, Clock::time_point arrived) {
  const auto armed = p_.faults.take(message);
  if (!armed) return false;
  const auto& fault = armed->with;
  const bool reset = fault == "reset";
  if (reset) abort_connection(p_.port, req.remote_port);
  res.status = reset ? 500 : std::stoi(fault);  // a reset's 500 never reaches the client
  // Checks about the fault's consequences are judged only once it fired (their `given`).
  if (!armed->label.empty())
    p_.transcript.event("the armed fault \"" + armed->label + "\" fired: " + fault,
                        {{"fired", armed->label}});
  const int status = reset ? 0 : res.status;
  p_.recorder.record(req, status, session, {{"fault", fault}});
  auto meta = p_.recorder.facts(req, status, session);
  meta["fault"] = fault;
  // A 404 says the session is gone: from now on it is, for every request that names it. The
  // streams already open stay (a load balancer that routed one POST to an instance without
  // the session does not cut the others).
  if (fault == "404" && !p_.options.legacy && !session.empty() &&
      p_.exchanges.with_sessions([&](HttpSessions& s) {
        return s.end(session, "fail_next_post answered a POST with 404");
      })) {
    p_.transcript.event("session " + session +
                            " ended by the server (the 404 fault): requests that name it get 404 "
                            "from now on; the streams already open stay",
                        {{"session", session}});
  }
  push_messages(message, body, std::move(meta), arrived);
  return true;
}

void HttpRoutes::hand_on(const Req& req, int status, const std::string& session,
                         const Json& message, const std::string& body, Clock::time_point arrived) {
  p_.recorder.record(req, status, session);
  push_messages(message, body, p_.recorder.facts(req, status, session), arrived);
}

void HttpRoutes::push_messages(const Json& message, const std::string& body, Json meta,
                               Clock::time_point arrived) {
  if (!message.is_array()) {
    p_.inbox.push(Incoming{Incoming::Kind::Line, body, 0, arrived, std::move(meta)});
    return;
  }
  p_.transcript.raw(Direction::ClientToServer, shorten(body, 1024), body.size(),
                    {{"note", "a JSON-RPC batch of " + std::to_string(message.size()) +
                                  " (revision 2025-03-26): each element follows as a message"}});
  meta["batch"] = message.size();
  for (const auto& element : message)
    p_.inbox.push(Incoming{Incoming::Kind::Line, safe_dump(element), 0, arrived, meta});
}

bool HttpRoutes::admit_stream(const Req& req, Res& res, const std::string& session) {
  if (p_.exchanges.take_place()) return true;
  p_.recorder.reject(
      req, res,
      Rejection{HttpRuleId::TooManyStreams, "more than " + std::to_string(p_.options.max_streams) +
                                                " streams and pending requests at once"},
      session);
  return false;
}

void HttpRoutes::serve_stream(const Req& req, Res& res, const std::shared_ptr<SseStream>& stream,
                              std::function<void(bool)> on_close) {
  const auto connection = stream->attach(connection_fd(p_.port, req.remote_port));
  p_.transcript.host_record("sse", {{"stream", stream->name()}, {"what", "open"}},
                            stream->name() + " stream open");
  set_event_stream(
      res,
      [stream, connection](std::size_t, httplib::DataSink& sink) {
        return stream->provide(sink, connection);
      },
      [this, stream, on_close = std::move(on_close)](bool success) {
        // Ended cleanly but not finished: the server closed the connection only.
        const bool disconnected = success && !stream->ended();
        const auto [reason, aside] =
            disconnected ? std::pair(
                               "disconnected: the server closed the connection, the stream "
                               "stays for the client to resume",
                               " (connection only: resumable)")
            : success ? std::pair("ended", "")
                      : std::pair("the client went away or the server stopped",
                                  " (client gone or stopping)");
        p_.transcript.host_record(
            "sse", {{"stream", stream->name()}, {"what", "close"}, {"reason", reason}},
            stream->name() + " stream closed" + aside);
        on_close(disconnected);
      });
}

void HttpRoutes::serve_listening(const Req& req, Res& res, const std::shared_ptr<SseStream>& stream,
                                 const std::string& session) {
  serve_stream(req, res, stream, [this, stream, session](bool disconnected) {
    Json meta{{"stream", stream->name()}, {"session", session}};
    if (disconnected) meta["resumable"] = true;
    meta["connected"] = p_.exchanges.with_sessions([&](HttpSessions& sessions) {
      auto& s = sessions.at(session);
      if (!disconnected && s.stream == stream) s.stream.reset();
      return sessions.connected(p_.options.legacy);
    });
    p_.exchanges.free_place();
    p_.inbox.push_event("get-stream-closed", std::move(meta));
  });
}

}  // namespace mcpping
