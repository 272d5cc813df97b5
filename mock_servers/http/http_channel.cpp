#include "http/http_channel.hpp"

#include <unistd.h>

#include <algorithm>

#include "core/check_registry.hpp"
#include "core/jsonrpc.hpp"
#include "core/pattern.hpp"
#include "core/text.hpp"
#include "engine/host.hpp"
#include "http/httplib_support.hpp"

namespace mcpping {

namespace {

// Headers recorded with every request (lower-cased): the ones a check may look at.
const char* const kFactHeaders[] = {
    "mcp-session-id", "mcp-protocol-version", "mcp-method",   "mcp-name",
    "accept",         "content-type",         "last-event-id"};

}  // namespace

HttpChannel::HttpChannel(Transcript& transcript, HttpOptions options)
    : transcript_(transcript), options_(options) {}

HttpChannel::~HttpChannel() { stop(); }

void HttpChannel::start() {
  configure_server(server_, HttplibSizing{options_.workers, options_.max_body_bytes});
  install_routes();
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("cannot bind 127.0.0.1");
  raise_backlog(port_);
  // Connections made before the accept loop runs wait in the backlog: the URL goes out now.
  accept_loop_.start(server_);
}

std::string HttpChannel::url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + (options_.legacy ? "/sse" : "/mcp");
}

void HttpChannel::stop() {
  if (stopping_.exchange(true)) return;
  {
    const std::lock_guard lock(mutex_);
    sessions_.stop_streams();
    for (auto& ex : pending_)
      if (ex->stream) ex->stream->stop();
  }
  decided_.notify_all();
  in_cv_.notify_all();
  accept_loop_.stop(server_, std::chrono::seconds(5));
}

void HttpChannel::install_routes() {
  using httplib::ContentReader;
  using httplib::Request;
  using httplib::Response;
  const std::string post_path = options_.legacy ? "/message" : "/mcp";
  auto with_body = [this](auto handler) {
    return [this, handler](const Request& req, Response& res, const ContentReader& reader) {
      (this->*handler)(req, res, reader);
    };
  };
  // No body at all (no Content-Length): an empty body, judged like any other.
  auto without_body = [this](auto handler) {
    return [this, handler](const Request& req, Response& res) {
      (this->*handler)(req, res, empty_content_reader());
    };
  };
  if (options_.legacy) {
    server_.Post(post_path, with_body(&HttpChannel::handle_legacy_post));
    server_.Post(post_path, without_body(&HttpChannel::handle_legacy_post));
    server_.Get("/sse", [this](const Request& q, Response& r) { handle_legacy_get(q, r); });
  } else {
    server_.Post(post_path, with_body(&HttpChannel::handle_post));
    server_.Post(post_path, without_body(&HttpChannel::handle_post));
    server_.Get("/mcp", [this](const Request& q, Response& r) { handle_get(q, r); });
    server_.Delete("/mcp", [this](const Request& q, Response& r) { handle_delete(q, r); });
  }
  auto other = [this](const Request& q, Response& r) { handle_other(q, r); };
  server_.Get(".*", other);
  server_.Post(".*", other);
  server_.Delete(".*", other);
  server_.Put(".*", other);
  server_.Patch(".*", other);
}

void HttpChannel::handle_other(const httplib::Request& req, httplib::Response& res) {
  const bool endpoint = req.path == (options_.legacy ? "/message" : "/mcp");
  res.status = endpoint ? 405 : 404;
  record_http(req, res.status, {}, {{"note", endpoint ? "method not allowed" : "no such path"}});
  refused_response(req, res.status, {}, req.body);
}

// ---- recording ----

Json HttpChannel::facts(const httplib::Request& req, int status, const std::string& session) const {
  Json headers = Json::object();
  for (const auto* name : kFactHeaders) {
    if (req.has_header(name)) headers[name] = req.get_header_value(name);
  }
  Json f{{"method", req.method}, {"path", req.path}, {"status", status}, {"headers", headers}};
  if (!session.empty()) f["session"] = session;
  return f;
}

void HttpChannel::record_http(const httplib::Request& req, int status, const std::string& session,
                              Json extra) {
  Json r = facts(req, status, session);
  for (auto& [k, v] : extra.items()) r[k] = v;
  std::string text = req.method + " " + req.path + " -> " +
                     (status ? std::to_string(status) : std::string("connection reset"));
  if (!session.empty()) text += " (session " + session + ")";
  if (r.contains("note")) text += ": " + r["note"].get<std::string>();
  transcript_.host_record("http", std::move(r), text);
}

void HttpChannel::implicit_check(const HttpRule& rule, const std::string& actual) {
  {
    const std::lock_guard lock(mutex_);
    // Once per case, or again when worse: a degraded check can still break.
    const auto [it, first] = recorded_checks_.emplace(std::string(rule.check), rule.outcome);
    if (!first) {
      if (it->second == Outcome::Broken || rule.outcome != Outcome::Broken) return;
      it->second = rule.outcome;
    }
  }
  CheckRecord r;
  r.check = builtin_check(rule.check, rule.spec);
  r.outcome = rule.outcome;
  r.expected = rule_expected(rule, options_.max_body_bytes);
  r.actual = actual;
  r.implicit = true;
  transcript_.check(r);
}

void HttpChannel::reject(const httplib::Request& req, httplib::Response& res,
                         const Rejection& rejection, const std::string& session,
                         const std::string& body) {
  const auto& rule = http_rule(rejection.rule);
  res.status = rule.status;
  if (!rejection.body.is_null()) res.set_content(safe_dump(rejection.body), "application/json");
  record_http(req, rule.status, session, {{"note", rejection.note}});
  if (!body.empty()) {
    transcript_.raw(Direction::ClientToServer, shorten(body, 1024), body.size(),
                    {{"note", "rejected with " + std::to_string(rule.status)}});
  }
  if (!rule.check.empty()) implicit_check(rule, rule_actual(rule, req, rejection.note, body));
  refused_response(req, rule.status, session, body);
}

// A refused response is still the client's answer: a step judging its POST (headers, path)
// sees it, and that it was refused, instead of finding no POST at all.
void HttpChannel::refused_response(const httplib::Request& req, int status,
                                   const std::string& session, const std::string& body) {
  const auto message = Json::parse(body, nullptr, false);
  if (!message.is_object() || !is_response(message)) return;
  auto meta = facts(req, status, session);
  meta["refused"] = status;
  meta["message"] = message;
  push_event("post-refused", std::move(meta));
}

bool HttpChannel::broke(const httplib::Request& req, httplib::Response& res,
                        const Rejection& broken, const std::string& session,
                        const std::string& body) {
  const auto& rule = http_rule(broken.rule);
  if (rule.refuses) {
    reject(req, res, broken, session, body);
    return true;
  }
  transcript_.event(req.method + " " + req.path + ": " + broken.note + " (recorded; accepted)");
  if (!rule.check.empty()) implicit_check(rule, rule_actual(rule, req, broken.note, body));
  return false;
}

// ---- incoming ----

void HttpChannel::push(Incoming in) {
  {
    const std::lock_guard lock(in_mutex_);
    inbox_.push_back(std::move(in));
  }
  in_cv_.notify_all();
}

void HttpChannel::push_event(const std::string& name, Json meta) {
  push(Incoming{Incoming::Kind::Event, name, 0, Clock::now(), std::move(meta)});
}

void HttpChannel::end_input(Incoming::Kind why) {
  {
    const std::lock_guard lock(in_mutex_);
    input_end_ = why;
  }
  in_cv_.notify_all();
}

Incoming HttpChannel::receive(Clock::time_point deadline) {
  std::unique_lock lock(in_mutex_);
  in_cv_.wait_until(lock, deadline,
                    [&] { return !inbox_.empty() || stopping_ || input_end_.has_value(); });
  if (inbox_.empty()) {
    const auto kind = input_end_  ? *input_end_
                      : stopping_ ? Incoming::Kind::Interrupted
                                  : Incoming::Kind::Timeout;
    return Incoming{kind, {}, 0, Clock::now()};
  }
  auto in = std::move(inbox_.front());
  inbox_.pop_front();
  return in;
}

PostBody HttpChannel::read_body(const httplib::Request& req, const httplib::ContentReader& reader) {
  PostBody body;
  bool too_large = false;
  const bool read = reader([&](const char* data, std::size_t n) {
    if (body.bytes.size() + n > options_.max_body_bytes) {
      too_large = true;
      return false;
    }
    body.bytes.append(data, n);
    return true;
  });
  // httplib itself refuses a Content-Length over the cap with 413 before reading.
  if (too_large || (req.has_header("Content-Length") &&
                    std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) >
                        options_.max_body_bytes))
    body.status = PostBody::Status::kTooLarge;
  else if (!read)
    body.status = PostBody::Status::kCutShort;
  return body;
}

bool HttpChannel::refuse_unread_body(const httplib::Request& req, httplib::Response& res,
                                     const PostBody& body, const std::string& session) {
  if (body.status == PostBody::Status::kWhole) return false;
  res.set_header("Connection", "close");
  if (body.status == PostBody::Status::kTooLarge) {
    reject(req, res,
           Rejection{HttpRuleId::BodyTooLarge,
                     "body over " + std::to_string(options_.max_body_bytes) + " bytes"},
           session);
    return true;
  }
  // Not a message the client sent but one it never finished: nothing to judge, as a server
  // that reads a request to its end judges nothing of a connection that broke before. No
  // answer goes out either: httplib closes a connection whose body it could not read.
  res.status = 400;
  record_http(req, 400, session,
              {{"note", "the connection ended after " + std::to_string(body.bytes.size()) +
                            " bytes of the body: no message"}});
  return true;
}

SessionCheck HttpChannel::check_session(const httplib::Request& req) {
  const std::lock_guard lock(mutex_);
  return sessions_.check(req);
}

bool HttpChannel::modern_binding() {
  const std::lock_guard lock(mutex_);
  return options_.modern && sessions_.empty();
}

bool HttpChannel::refuse_in_modern_binding(const httplib::Request& req, httplib::Response& res) {
  if (!modern_binding()) return false;
  // RFC 9110: a 405 "MUST generate an Allow header field".
  res.set_header("Allow", "POST");
  reject(req, res,
         Rejection{HttpRuleId::ModernGetOrDelete,
                   req.method == "GET" ? "the 2026-07-28 binding has no GET stream"
                                       : "the 2026-07-28 binding has no session to delete"},
         {});
  return true;
}

// ---- faults ----

std::optional<PostFault> HttpChannel::take_fault(const Json& message) {
  const std::lock_guard lock(mutex_);
  if (!fault_) return std::nullopt;
  // A batch matches when one of its messages does.
  const auto elements = message.is_array() ? message : Json::array({message});
  if (std::none_of(elements.begin(), elements.end(), [&](const Json& element) {
        return matches(fault_->pattern, element, fault_->captures);
      }))
    return std::nullopt;
  auto fault = std::move(*fault_);
  fault_.reset();
  return fault;
}

bool HttpChannel::arm_post_fault(const PostFault& fault) {
  const std::lock_guard lock(mutex_);
  fault_ = fault;
  return true;
}

void HttpChannel::apply_fault(const httplib::Request& req, httplib::Response& res,
                              const std::string& with) {
  if (with != "reset") {
    res.status = std::stoi(with);
    return;
  }
  abort_connection(port_, req.remote_port);
  res.status = 500;  // never reaches the client
}

bool HttpChannel::fault_post(const httplib::Request& req, httplib::Response& res,
                             const Json& message, const std::string& body,
                             const std::string& session, Clock::time_point arrived) {
  const auto armed = take_fault(message);
  if (!armed) return false;
  const auto fault = std::optional<std::string>(armed->with);
  apply_fault(req, res, *fault);
  // Checks about the fault's consequences are judged only once it fired (their `given`).
  if (!armed->label.empty())
    transcript_.event("the armed fault \"" + armed->label + "\" fired: " + *fault,
                      {{"fired", armed->label}});
  const int status = *fault == "reset" ? 0 : res.status;
  record_http(req, status, session, {{"fault", *fault}});
  auto meta = facts(req, status, session);
  meta["fault"] = *fault;
  if (*fault == "404" && !options_.legacy && !session.empty()) {
    // A 404 says the session is gone: from now on it is, for every request that names it.
    // The streams already open stay (a load balancer that routed one POST to an instance
    // without the session does not cut the others).
    bool ended = false;
    {
      const std::lock_guard lock(mutex_);
      ended = sessions_.end(session, "fail_next_post answered a POST with 404");
    }
    if (ended) {
      transcript_.event("session " + session +
                            " ended by the server (the 404 fault): requests that name it get 404 "
                            "from now on; the streams already open stay",
                        {{"session", session}});
    }
  }
  push_messages(message, body, std::move(meta), arrived);
  return true;
}

void HttpChannel::push_messages(const Json& message, const std::string& body, Json meta,
                                Clock::time_point arrived) {
  if (!message.is_array()) {
    push(Incoming{Incoming::Kind::Line, body, 0, arrived, std::move(meta)});
    return;
  }
  transcript_.raw(Direction::ClientToServer, shorten(body, 1024), body.size(),
                  {{"note", "a JSON-RPC batch of " + std::to_string(message.size()) +
                                " (revision 2025-03-26): each element follows as a message"}});
  meta["batch"] = message.size();
  for (const auto& element : message)
    push(Incoming{Incoming::Kind::Line, safe_dump(element), 0, arrived, meta});
}

// ---- streams ----

bool HttpChannel::admit_stream(const httplib::Request& req, httplib::Response& res,
                               const std::string& session) {
  {
    const std::lock_guard lock(mutex_);
    if (open_streams_ < options_.max_streams) {
      ++open_streams_;
      return true;
    }
  }
  res.status = 503;
  record_http(req, 503, session,
              {{"note", "more than " + std::to_string(options_.max_streams) +
                            " streams and pending requests at once"}});
  return false;
}

void HttpChannel::serve_stream(const httplib::Request& req, httplib::Response& res,
                               const std::shared_ptr<SseStream>& stream,
                               std::function<void(bool)> on_close) {
  const auto connection = stream->attach(connection_fd(port_, req.remote_port));
  transcript_.host_record("sse", {{"stream", stream->name()}, {"what", "open"}},
                          stream->name() + " stream open");
  set_event_stream(
      res,
      [stream, connection](std::size_t, httplib::DataSink& sink) {
        return stream->provide(sink, connection);
      },
      [this, stream, on_close = std::move(on_close)](bool success) {
        // Ended cleanly but not finished: the server closed the connection only.
        const bool disconnected = success && !stream->ended();
        const std::string reason =
            disconnected ? "disconnected: the server closed the connection, the stream stays "
                           "for the client to resume"
            : success    ? "ended"
                         : "the client went away or the server stopped";
        transcript_.host_record("sse",
                                {{"stream", stream->name()}, {"what", "close"}, {"reason", reason}},
                                stream->name() + " stream closed" +
                                    (disconnected ? " (connection only: resumable)"
                                     : success    ? ""
                                                  : " (client gone or stopping)"));
        on_close(disconnected);
      });
}

void HttpChannel::release_exchange_connection(const std::shared_ptr<Exchange>& ex) {
  const std::lock_guard lock(mutex_);
  --open_streams_;
  // Not ended: disconnected, and maybe resumed already on another connection.
  if (ex->stream->ended()) pending_.remove(ex);
}

// The connection of a session's listening stream (Streamable HTTP's GET stream, legacy SSE's
// only stream) ended: forget the stream, unless the server only closed the connection
// (`disconnected`: it waits for the client to reconnect, and may have been resumed already),
// and tell the script.
void HttpChannel::release_listening_stream(const std::shared_ptr<SseStream>& stream,
                                           const std::string& session, const std::string& name,
                                           bool disconnected) {
  Json meta{{"stream", name}, {"session", session}};
  {
    const std::lock_guard lock(mutex_);
    auto& s = sessions_.at(session);
    if (disconnected) {
      meta["resumable"] = true;
    } else if (s.stream == stream) {
      s.stream.reset();
    }
    --open_streams_;
    meta["connected"] = sessions_.connected(options_.legacy);
  }
  push_event("get-stream-closed", std::move(meta));
}

std::size_t HttpChannel::write_stderr(std::string_view bytes, Clock::time_point deadline) {
  return write_stderr_bounded(STDERR_FILENO, bytes, deadline);
}

}  // namespace mcpping
