// Streamable HTTP (2025-03-26 to 2025-11-25): POST, GET and DELETE on /mcp.
#include <algorithm>
#include <cctype>

#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "http/http_channel.hpp"

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

void HttpChannel::handle_post(const httplib::Request& req, httplib::Response& res,
                              const httplib::ContentReader& reader) {
  const auto body = read_body(req, reader);
  if (!body) {
    res.set_header("Connection", "close");
    return reject(req, res,
                  Rejection{HttpRuleId::BodyTooLarge,
                            "body over " + std::to_string(options_.max_body_bytes) + " bytes"},
                  {});
  }
  const auto message = Json::parse(*body, nullptr, false);
  if (message.is_discarded())
    return reject(
        req, res,
        Rejection{HttpRuleId::NotJson, "the body is not JSON", rpc_error(-32700, "Parse error")},
        {}, *body);
  if (!is_single_message(message)) {
    const auto note = message.is_array()
                          ? std::string("a JSON array (a batch; this server takes single messages)")
                          : "not a JSON-RPC request, notification or response";
    return reject(req, res,
                  Rejection{HttpRuleId::NotMessage, note, rpc_error(-32600, "Invalid Request")}, {},
                  *body);
  }
  const bool initialize = is_request(message) && method_of(message) == "initialize";
  std::string session;
  if (!initialize) {
    const auto checked = check_session(req);
    session = checked.session;
    for (const auto& broken : checked.broken)
      if (broke(req, res, broken, session, *body)) return;
  }
  const auto accept = lower(req.get_header_value("Accept"));
  if (accept.find("application/json") == std::string::npos ||
      accept.find("text/event-stream") == std::string::npos) {
    if (broke(req, res,
              Rejection{HttpRuleId::PostAccept,
                        "Accept does not list application/json and text/event-stream"},
              session, *body))
      return;
  }
  if (media_type(req.get_header_value("Content-Type")) != "application/json") {
    if (broke(req, res, Rejection{HttpRuleId::ContentType, "Content-Type is not application/json"},
              session, *body))
      return;
  }

  const auto arrived = Clock::now();
  if (fault_post(req, res, message, *body, session, arrived)) return;
  if (!is_request(message)) {
    res.status = 202;
    record_http(req, 202, session);
    return push(Incoming{Incoming::Kind::Line, *body, 0, arrived, facts(req, 202, session)});
  }
  if (!admit_stream(req, res, session)) return;

  auto ex = std::make_shared<Exchange>();
  ex->id = message["id"];
  ex->key = safe_dump(ex->id);
  ex->initialize = initialize;
  {
    const std::lock_guard lock(mutex_);
    if (initialize) session = sessions_.create();
    ex->session = session;
    if (options_.post_always_sse) decide_sse_locked(*ex);
    pending_.push_back(ex);
  }
  if (initialize) {
    res.set_header("Mcp-Session-Id", session);
    push_event("session-started", {{"session", session}, {"connected", true}});
  }
  record_http(req, 200, session);
  push(Incoming{Incoming::Kind::Line, *body, 0, arrived, facts(req, 200, session)});

  std::unique_lock lock(mutex_);
  decided_.wait_until(lock, options_.deadline + std::chrono::seconds(3),
                      [&] { return ex->mode != Exchange::Mode::Undecided || stopping_; });
  if (ex->mode == Exchange::Mode::Json) {
    --open_streams_;
    lock.unlock();
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
  serve_stream(req, res, stream, [this, ex] {
    const std::lock_guard guard(mutex_);
    pending_.remove(ex);
    --open_streams_;
  });
}

void HttpChannel::handle_get(const httplib::Request& req, httplib::Response& res) {
  const auto checked = check_session(req);
  const std::string& session = checked.session;
  for (const auto& broken : checked.broken)
    if (broke(req, res, broken, session)) return;
  if (lower(req.get_header_value("Accept")).find("text/event-stream") == std::string::npos) {
    if (broke(req, res, Rejection{HttpRuleId::GetAccept, "Accept does not list text/event-stream"},
              session))
      return;
  }
  {
    const std::lock_guard lock(mutex_);
    auto& s = sessions_.at(session);
    if (s.stream && !s.stream->ended()) {
      res.status = 409;
      record_http(req, 409, session, {{"note", "a GET stream is already open for this session"}});
      return;
    }
  }
  if (!admit_stream(req, res, session)) return;
  auto stream = std::make_shared<SseStream>("get");
  {
    const std::lock_guard lock(mutex_);
    sessions_.at(session).stream = stream;
  }
  record_http(req, 200, session);
  push_event("get-stream-opened", {{"stream", "get"}, {"session", session}, {"connected", true}});
  serve_stream(req, res, stream,
               [this, stream, session] { release_listening_stream(stream, session, "get"); });
}

void HttpChannel::handle_delete(const httplib::Request& req, httplib::Response& res) {
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
    meta["connected"] = sessions_.connected(options_.legacy);
  }
  res.status = 200;
  record_http(req, 200, session, {{"note", "session deleted"}});
  push_event("session-deleted", std::move(meta));
}

}  // namespace mcpping
