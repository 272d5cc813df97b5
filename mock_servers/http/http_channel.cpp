#include "http/http_channel.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "engine/host.hpp"
#include "engine/interpreter.hpp"
#include "engine/pattern.hpp"
#include "engine/scenario.hpp"
#include "http/sse_framing.hpp"

namespace mcpping {

namespace {

// Headers recorded with every request (lower-cased): the ones a check may look at.
const char* const kFactHeaders[] = {"mcp-session-id", "mcp-protocol-version", "accept",
                                    "content-type", "last-event-id"};

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

std::string method_of(const Json& m) {
  const auto it = m.find("method");
  return it != m.end() && it->is_string() ? it->get<std::string>() : std::string();
}
bool is_request(const Json& m) { return m.contains("method") && m.contains("id"); }
bool is_notification(const Json& m) { return m.contains("method") && !m.contains("id"); }
bool is_response(const Json& m) {
  return !m.contains("method") && m.contains("id") && (m.contains("result") || m.contains("error"));
}

Json rpc_error(int code, const std::string& message) {
  // MCP: the body "MAY comprise a JSON-RPC error response that has no id".
  return Json{{"jsonrpc", "2.0"}, {"error", {{"code", code}, {"message", message}}}};
}

// Calls `visit(fd, peer_port)` for every IPv4 socket of this process bound to `server_port`;
// peer_port is 0 for the listening socket. httplib 0.11 exposes neither its listening nor its
// accepted sockets, and both are needed below.
template <typename Visit>
void for_each_server_socket(int server_port, Visit&& visit) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    sockaddr_in local{}, peer{};
    socklen_t local_len = sizeof local, peer_len = sizeof peer;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
        local.sin_family != AF_INET || ntohs(local.sin_port) != server_port)
      continue;
    const bool connected = ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) == 0;
    if (!visit(fd, connected ? ntohs(peer.sin_port) : 0)) return;
  }
}

// The accepted socket a request came on, found by its peer port: a "reset" fault must abort
// that very connection.
int connection_fd(int server_port, int peer_port) {
  int found = -1;
  for_each_server_socket(server_port, [&](int fd, int peer) {
    if (peer != peer_port) return true;
    found = fd;
    return false;
  });
  return found;
}

// httplib 0.11 listens with a backlog of 5 (compiled into the library): a burst of clients
// would overflow it. listen() again on the same socket raises it.
void raise_backlog(int server_port) {
  for_each_server_socket(server_port, [](int fd, int peer) {
    if (peer == 0) ::listen(fd, 1024);
    return true;
  });
}

}  // namespace

HttpChannel::HttpChannel(Transcript& transcript, HttpOptions options)
    : transcript_(transcript), options_(options) {}

HttpChannel::~HttpChannel() { stop(); }

void HttpChannel::start() {
  const auto workers = options_.workers;
  // Each open stream and each idle keep-alive connection holds a worker in httplib 0.11.
  server_.new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  server_.set_payload_max_length(options_.max_body_bytes);
  server_.set_keep_alive_timeout(2);
  server_.set_write_timeout(2, 0);
  server_.set_tcp_nodelay(true);  // chopped events leave as separate segments, at once
  install_routes();
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("cannot bind 127.0.0.1");
  raise_backlog(port_);
  listener_ = std::thread([this] { server_.listen_after_bind(); });
  // stop() is a no-op until the accept loop runs (httplib 0.11 has no wait_until_ready).
  const auto limit = Clock::now() + std::chrono::seconds(5);
  while (!server_.is_running() && Clock::now() < limit)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!server_.is_running()) throw std::runtime_error("the HTTP server did not start");
}

std::string HttpChannel::url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + (options_.legacy ? "/sse" : "/mcp");
}

void HttpChannel::stop() {
  if (stopping_.exchange(true)) return;
  {
    const std::lock_guard lock(mutex_);
    for (auto& [id, s] : sessions_)
      if (s.stream) s.stream->stop();
    for (auto& ex : pending_)
      if (ex->stream) ex->stream->stop();
  }
  decided_.notify_all();
  in_cv_.notify_all();
  if (listener_.joinable()) {
    server_.stop();
    listener_.join();
  }
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
      const ContentReader empty(
          [](httplib::ContentReceiver) { return true; },
          [](httplib::MultipartContentHeader, httplib::ContentReceiver) { return true; });
      (this->*handler)(req, res, empty);
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

void HttpChannel::implicit_check(const std::string& id, Level level, const std::string& spec,
                                 const std::string& expected, const std::string& actual) {
  {
    const std::lock_guard lock(mutex_);
    if (!recorded_checks_.insert(id).second) return;  // once per case
  }
  CheckRecord r;
  r.check = CheckDef{id, level, {spec}};
  r.verdict = judge(level, Outcome::Broken);
  r.expected = expected;
  r.actual = actual;
  r.extra = {{"implicit", true}};
  transcript_.check(r);
}

void HttpChannel::reject(const httplib::Request& req, httplib::Response& res, const Reply& reply,
                         const std::string& session, const std::string& body) {
  res.status = reply.status;
  if (!reply.body.is_null()) res.set_content(safe_dump(reply.body), "application/json");
  record_http(req, reply.status, session, {{"note", reply.note}});
  if (!body.empty()) {
    transcript_.raw(Direction::ClientToServer, shorten(body, 1024), body.size(),
                    {{"note", "rejected with " + std::to_string(reply.status)}});
  }
  if (reply.check == "http:session-id") {
    implicit_check(reply.check, Level::Must, "http.session-header",
                   "every request after initialize carries the Mcp-Session-Id the server issued",
                   req.method + " " + req.path + " without Mcp-Session-Id");
  } else if (reply.check == "http:protocol-version") {
    implicit_check(reply.check, Level::Must, "http.protocol-version-header",
                   "every request after initialize carries MCP-Protocol-Version with the "
                   "negotiated version",
                   req.method + " " + req.path + ": " + reply.note);
  } else if (reply.check == "http:accept") {
    implicit_check(reply.check, Level::Must, "http.accept-both",
                   req.method == "GET"
                       ? "a GET lists text/event-stream in Accept"
                       : "a POST lists both application/json and text/event-stream in Accept",
                   req.method + " " + req.path + " with Accept: " +
                       (req.has_header("Accept") ? req.get_header_value("Accept") : "(none)"));
  } else if (reply.check == "http:content-type") {
    implicit_check(
        reply.check, Level::Should, "http.post-body-json",
        "a POST body is JSON (Content-Type: application/json)",
        "Content-Type: " + (req.has_header("Content-Type") ? req.get_header_value("Content-Type")
                                                           : std::string("(none)")));
  } else if (reply.check == "transport:valid-message") {
    implicit_check(reply.check, Level::Must, "http.post-body-json",
                   "every POST body is one JSON-RPC request, notification or response",
                   reply.note + ": " + shorten(body, 200));
  } else if (reply.check == "http:body-too-large") {
    implicit_check(reply.check, Level::Info, "http.post-body-json",
                   "POST bodies of at most " + std::to_string(options_.max_body_bytes) + " bytes",
                   reply.note);
  }
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

Incoming HttpChannel::receive(Clock::time_point deadline) {
  std::unique_lock lock(in_mutex_);
  in_cv_.wait_until(lock, deadline, [&] { return !inbox_.empty() || stopping_; });
  if (inbox_.empty()) {
    return Incoming{
        stopping_ ? Incoming::Kind::Interrupted : Incoming::Kind::Timeout, {}, 0, Clock::now()};
  }
  auto in = std::move(inbox_.front());
  inbox_.pop_front();
  return in;
}

bool HttpChannel::connected_locked() const {
  for (const auto& [id, s] : sessions_) {
    if (options_.legacy ? (s.stream && !s.stream->ended()) : !s.deleted) return true;
  }
  return false;
}

std::optional<std::string> HttpChannel::read_body(const httplib::Request& req,
                                                  const httplib::ContentReader& reader) {
  std::string body;
  bool too_large = false;
  reader([&](const char* data, std::size_t n) {
    if (body.size() + n > options_.max_body_bytes) {
      too_large = true;
      return false;
    }
    body.append(data, n);
    return true;
  });
  // httplib itself refuses a Content-Length over the cap with 413 before reading.
  if (too_large || (req.has_header("Content-Length") &&
                    std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) >
                        options_.max_body_bytes))
    return std::nullopt;
  return body;
}

std::optional<HttpChannel::Reply> HttpChannel::check_session(const httplib::Request& req,
                                                             std::string& session) {
  if (!req.has_header("Mcp-Session-Id"))
    return Reply{400, "no Mcp-Session-Id header", "http:session-id",
                 rpc_error(-32600, "Bad Request: Mcp-Session-Id header is required")};
  const auto id = req.get_header_value("Mcp-Session-Id");
  const std::lock_guard lock(mutex_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.deleted)
    return Reply{404, "unknown or deleted session \"" + shorten(id, 80) + "\"", "",
                 rpc_error(-32001, "Session not found")};
  session = id;
  const auto& negotiated = it->second.protocol_version;
  const auto from = revision_index("2025-06-18");
  const auto index = negotiated ? revision_index(*negotiated) : std::nullopt;
  if (index && from && *index >= *from) {
    if (!req.has_header("MCP-Protocol-Version"))
      return Reply{400, "no MCP-Protocol-Version header (negotiated " + *negotiated + ")",
                   "http:protocol-version",
                   rpc_error(-32600, "Bad Request: MCP-Protocol-Version header is required")};
    const auto sent = req.get_header_value("MCP-Protocol-Version");
    if (sent != *negotiated)
      return Reply{400, "MCP-Protocol-Version " + shorten(sent, 80) + ", negotiated " + *negotiated,
                   "http:protocol-version",
                   rpc_error(-32600, "Bad Request: unsupported MCP-Protocol-Version")};
  }
  return std::nullopt;
}

std::optional<std::string> HttpChannel::take_fault(const Json& message) {
  const std::lock_guard lock(mutex_);
  if (!fault_ || !matches(fault_->pattern, message, fault_->captures)) return std::nullopt;
  auto with = fault_->with;
  fault_.reset();
  return with;
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
  const int fd = connection_fd(port_, req.remote_port);
  if (fd >= 0) {
    // Abort: no response at all, and an RST when httplib closes the socket.
    const linger abort_now{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_now, sizeof abort_now);
    ::shutdown(fd, SHUT_RDWR);
  }
  res.status = 500;  // never reaches the client
}

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

void HttpChannel::serve_stream(httplib::Response& res, std::shared_ptr<SseStream> stream,
                               std::function<void()> on_close) {
  transcript_.host_record("sse", {{"stream", stream->name()}, {"what", "open"}},
                          stream->name() + " stream open");
  res.set_header("Cache-Control", "no-cache");
  // Exactly "text/event-stream": with parameters httplib 0.11 would compress and buffer it.
  res.set_chunked_content_provider(
      "text/event-stream",
      [stream](std::size_t, httplib::DataSink& sink) { return stream->provide(sink); },
      [this, stream, on_close](bool success) {
        transcript_.host_record(
            "sse",
            {{"stream", stream->name()},
             {"what", "close"},
             {"reason", success ? "ended" : "the client went away or the server stopped"}},
            stream->name() + " stream closed" + (success ? "" : " (client gone or stopping)"));
        on_close();
      });
}

void HttpChannel::handle_post(const httplib::Request& req, httplib::Response& res,
                              const httplib::ContentReader& reader) {
  const auto body = read_body(req, reader);
  if (!body) {
    res.set_header("Connection", "close");
    return reject(req, res,
                  Reply{413, "body over " + std::to_string(options_.max_body_bytes) + " bytes",
                        "http:body-too-large", nullptr},
                  {});
  }
  const auto message = Json::parse(*body, nullptr, false);
  if (message.is_discarded())
    return reject(req, res,
                  Reply{400, "the body is not JSON", "transport:valid-message",
                        rpc_error(-32700, "Parse error")},
                  {}, *body);
  if (!message.is_object() ||
      !(is_request(message) || is_notification(message) || is_response(message))) {
    const auto note = message.is_array()
                          ? std::string("a JSON array (a batch; this server takes single messages)")
                          : "not a JSON-RPC request, notification or response";
    return reject(req, res,
                  Reply{400, note, "transport:valid-message", rpc_error(-32600, "Invalid Request")},
                  {}, *body);
  }
  const bool initialize = is_request(message) && method_of(message) == "initialize";
  std::string session;
  if (!initialize) {
    if (auto r = check_session(req, session)) return reject(req, res, *r, session, *body);
  }
  const auto accept = lower(req.get_header_value("Accept"));
  if (accept.find("application/json") == std::string::npos ||
      accept.find("text/event-stream") == std::string::npos)
    return reject(req, res,
                  Reply{406, "Accept must list application/json and text/event-stream",
                        "http:accept", rpc_error(-32600, "Not Acceptable")},
                  session, *body);
  if (media_type(req.get_header_value("Content-Type")) != "application/json")
    return reject(req, res,
                  Reply{415, "Content-Type must be application/json", "http:content-type",
                        rpc_error(-32600, "Unsupported Media Type")},
                  session, *body);

  const auto arrived = Clock::now();
  if (auto fault = take_fault(message)) {
    apply_fault(req, res, *fault);
    const int status = *fault == "reset" ? 0 : res.status;
    record_http(req, status, session, {{"fault", *fault}});
    auto meta = facts(req, status, session);
    meta["fault"] = *fault;
    return push(Incoming{Incoming::Kind::Line, *body, 0, arrived, std::move(meta)});
  }
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
    if (initialize) {
      // Visible ASCII only (0x21-0x7E), as the spec requires.
      session = "mcp-session-" + std::to_string(++session_counter_) + "-" +
                std::to_string(static_cast<long>(::getpid()));
      sessions_[session].id = session;
    }
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
  serve_stream(res, stream, [this, ex] {
    const std::lock_guard guard(mutex_);
    pending_.remove(ex);
    --open_streams_;
  });
}

void HttpChannel::handle_get(const httplib::Request& req, httplib::Response& res) {
  std::string session;
  if (auto r = check_session(req, session)) return reject(req, res, *r, session);
  if (lower(req.get_header_value("Accept")).find("text/event-stream") == std::string::npos)
    return reject(req, res,
                  Reply{406, "Accept must list text/event-stream", "http:accept", nullptr},
                  session);
  {
    const std::lock_guard lock(mutex_);
    auto& s = sessions_[session];
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
    sessions_[session].stream = stream;
  }
  record_http(req, 200, session);
  push_event("get-stream-opened", {{"stream", "get"}, {"session", session}, {"connected", true}});
  serve_stream(res, stream,
               [this, stream, session] { release_listening_stream(stream, session, "get"); });
}

// A session's listening stream (Streamable HTTP's GET stream, legacy SSE's only stream)
// ended: forget it and tell the script.
void HttpChannel::release_listening_stream(const std::shared_ptr<SseStream>& stream,
                                           const std::string& session, const std::string& name) {
  Json meta{{"stream", name}, {"session", session}};
  {
    const std::lock_guard lock(mutex_);
    auto& s = sessions_[session];
    if (s.stream == stream) s.stream.reset();
    --open_streams_;
    meta["connected"] = connected_locked();
  }
  push_event("get-stream-closed", std::move(meta));
}

void HttpChannel::handle_delete(const httplib::Request& req, httplib::Response& res) {
  std::string session;
  if (auto r = check_session(req, session)) return reject(req, res, *r, session);
  Json meta{{"session", session}};
  {
    const std::lock_guard lock(mutex_);
    auto& s = sessions_[session];
    s.deleted = true;
    if (s.stream) s.stream->push({}, true);  // ends the GET stream cleanly
    meta["connected"] = connected_locked();
  }
  res.status = 200;
  record_http(req, 200, session, {{"note", "session deleted"}});
  push_event("session-deleted", std::move(meta));
}

void HttpChannel::handle_legacy_get(const httplib::Request& req, httplib::Response& res) {
  if (!admit_stream(req, res, {})) return;
  auto stream = std::make_shared<SseStream>("sse");
  std::string session;
  {
    const std::lock_guard lock(mutex_);
    session = "legacy-" + std::to_string(++session_counter_) + "-" +
              std::to_string(static_cast<long>(::getpid()));
    sessions_[session].id = session;
    sessions_[session].stream = stream;
    legacy_session_ = session;
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
  serve_stream(res, stream,
               [this, stream, session] { release_listening_stream(stream, session, "sse"); });
}

void HttpChannel::handle_legacy_post(const httplib::Request& req, httplib::Response& res,
                                     const httplib::ContentReader& reader) {
  const auto body = read_body(req, reader);
  const auto session = req.get_param_value("sessionId");
  if (!body) {
    res.set_header("Connection", "close");
    return reject(req, res,
                  Reply{413, "body over " + std::to_string(options_.max_body_bytes) + " bytes",
                        "http:body-too-large", nullptr},
                  session);
  }
  if (!req.has_param("sessionId"))
    return reject(req, res, Reply{400, "no sessionId query parameter", "", nullptr}, {}, *body);
  {
    const std::lock_guard lock(mutex_);
    if (!sessions_.count(session)) {
      res.status = 404;
      record_http(req, 404, session, {{"note", "unknown session"}});
      return;
    }
  }
  const auto message = Json::parse(*body, nullptr, false);
  if (message.is_discarded() || !message.is_object() ||
      !(is_request(message) || is_notification(message) || is_response(message)))
    return reject(req, res,
                  Reply{400,
                        message.is_discarded() ? "the body is not JSON"
                                               : "not a JSON-RPC request, notification or response",
                        "transport:valid-message",
                        rpc_error(message.is_discarded() ? -32700 : -32600, "Invalid message")},
                  session, *body);
  const auto arrived = Clock::now();
  if (auto fault = take_fault(message)) {
    apply_fault(req, res, *fault);
    const int status = *fault == "reset" ? 0 : res.status;
    record_http(req, status, session, {{"fault", *fault}});
    auto meta = facts(req, status, session);
    meta["fault"] = *fault;
    return push(Incoming{Incoming::Kind::Line, *body, 0, arrived, std::move(meta)});
  }
  res.status = 202;
  record_http(req, 202, session);
  push(Incoming{Incoming::Kind::Line, *body, 0, arrived, facts(req, 202, session)});
}

void HttpChannel::handle_other(const httplib::Request& req, httplib::Response& res) {
  const bool endpoint = req.path == (options_.legacy ? "/message" : "/mcp");
  res.status = endpoint ? 405 : 404;
  record_http(req, res.status, {}, {{"note", endpoint ? "method not allowed" : "no such path"}});
}

// ---- outgoing ----

void HttpChannel::decide_sse_locked(Exchange& ex) {
  ex.mode = Exchange::Mode::Sse;
  ex.stream = std::make_shared<SseStream>("post:" + ex.key);
  decided_.notify_all();
}

void HttpChannel::note_initialize_result_locked(const Exchange& ex, const Json& message) {
  if (!ex.initialize || !message.contains("result") || !message["result"].is_object()) return;
  const auto& result = message["result"];
  if (result.contains("protocolVersion") && result["protocolVersion"].is_string())
    sessions_[ex.session].protocol_version = result["protocolVersion"].get<std::string>();
}

HttpChannel::Target HttpChannel::route_locked(const Json& message, const std::string& route) {
  Target t;
  if (options_.legacy) {
    const auto it = sessions_.find(legacy_session_);
    if (it == sessions_.end() || !it->second.stream || it->second.stream->ended()) {
      t.error = "the client has no SSE stream open";
    } else {
      t.stream = it->second.stream;
      t.name = "sse";
    }
    return t;
  }
  const bool response = message.is_object() && is_response(message);
  const auto key = response ? safe_dump(message["id"]) : std::string();
  auto exchange = [&](const std::string& k) -> std::shared_ptr<Exchange> {
    for (auto& ex : pending_)
      if (ex->key == k && !ex->answered) return ex;
    return nullptr;
  };
  auto get_stream = [&]() -> std::shared_ptr<SseStream> {
    std::shared_ptr<SseStream> found;
    for (auto& [id, s] : sessions_)
      if (!s.deleted && s.stream && !s.stream->ended()) found = s.stream;
    return found;
  };
  std::shared_ptr<Exchange> ex;
  if (route == "get") {
    t.stream = get_stream();
    t.name = "get";
    if (!t.stream) t.error = "the client has no GET stream open";
    return t;
  }
  if (route.rfind("post:", 0) == 0) {
    ex = exchange(route.substr(5));
    if (!ex) {
      t.error = "the POST of request " + route.substr(5) + " has no open stream";
      return t;
    }
  } else if (response) {
    ex = exchange(key);
    if (!ex) {
      t.name = "none";  // nothing waits for it: recorded, not sent
      return t;
    }
  } else if (!pending_.empty()) {
    for (auto it = pending_.rbegin(); it != pending_.rend() && !ex; ++it)
      if (!(*it)->answered) ex = *it;
  }
  if (!ex) {
    t.stream = get_stream();
    t.name = "get";
    if (!t.stream)
      t.error = "no stream to send on: no request is pending and no GET stream is open";
    return t;
  }
  t.exchange = ex;
  t.name = "post:" + ex->key;
  t.finishes = response && key == ex->key;
  return t;
}

SendResult HttpChannel::send(const std::vector<std::string>& frames, const SendOptions& options) {
  SendResult result;
  SseFraming framing = options.sse;
  if (options_.legacy && !framing.event) framing.event = "message";  // 2024-11-05
  struct Planned {
    std::shared_ptr<SseStream> stream;  // null: JSON body or not sent
    std::string name;
    std::uint64_t seq = 0;
    std::size_t writes = 1;
  };
  std::vector<Planned> plan;
  std::string error;
  {
    const std::lock_guard lock(mutex_);
    // Consecutive frames to one stream share the write mode's chunking (coalesced: one chunk).
    std::shared_ptr<SseStream> run_stream;
    std::vector<std::string> run_events;
    std::vector<std::size_t> run_index;
    bool run_finish = false;
    auto flush = [&] {
      if (!run_stream) return;
      const auto chunking = chunk_events(run_events, options.mode, options.chunk);
      const auto seqs = run_stream->push(chunking.chunks, run_finish);
      for (std::size_t j = 0; j < run_index.size(); ++j) {
        plan[run_index[j]].seq = seqs[chunking.last_chunk[j]];
        plan[run_index[j]].writes = chunking.chunk_count[j];
      }
      run_stream.reset();
      run_events.clear();
      run_index.clear();
      run_finish = false;
    };
    for (const auto& text : frames) {
      const auto message = Json::parse(text, nullptr, false);
      auto t = route_locked(message, options.route);
      if (!t.error.empty()) {
        error = t.error;
        break;
      }
      Planned p;
      p.name = t.name;
      if (t.exchange) {
        auto& ex = *t.exchange;
        if (t.finishes) {
          ex.answered = true;
          note_initialize_result_locked(ex, message);
        }
        if (ex.mode == Exchange::Mode::Undecided) {
          if (t.finishes) {  // the response comes first: a plain JSON body
            ex.mode = Exchange::Mode::Json;
            ex.json_body = text;
            decided_.notify_all();
            flush();
            plan.push_back(p);
            continue;
          }
          decide_sse_locked(ex);
        }
        t.stream = ex.stream;
      }
      if (!t.stream) {  // a response nothing waits for
        flush();
        p.writes = 0;
        plan.push_back(p);
        continue;
      }
      if (run_stream != t.stream) flush();
      run_stream = t.stream;
      run_events.push_back(sse_event(text, framing));
      run_index.push_back(plan.size());
      run_finish = run_finish || t.finishes;
      p.stream = t.stream;
      plan.push_back(p);
    }
    flush();
  }
  const auto limit =
      std::min(Clock::now() + std::chrono::seconds(5), options_.deadline + std::chrono::seconds(2));
  for (const auto& p : plan) {
    Clock::time_point at = Clock::now();
    if (p.stream) {
      const auto written = p.stream->wait_written(p.seq, limit);
      if (!written) {
        result.ok = false;
        result.error = "the " + p.name + " stream ended before the frame was written";
        return result;
      }
      at = *written;
    } else if (p.name == "none") {
      transcript_.event("no POST waits for this response: not sent");
    }
    result.writes.push_back(p.writes);
    result.done.push_back(at);
    result.streams.push_back(p.name);
  }
  if (!error.empty()) {
    result.ok = false;
    result.error = error;
  }
  return result;
}

SendResult HttpChannel::send_raw(const std::string& bytes, std::size_t chunk,
                                 const std::string& route) {
  SendResult result;
  std::shared_ptr<SseStream> stream;
  std::string name;
  std::uint64_t seq = 0;
  std::size_t writes = 0;
  {
    const std::lock_guard lock(mutex_);
    auto t = route_locked(Json(), route);
    if (!t.error.empty()) {
      result.ok = false;
      result.error = t.error;
      return result;
    }
    if (t.exchange) {
      if (t.exchange->mode == Exchange::Mode::Undecided) decide_sse_locked(*t.exchange);
      t.stream = t.exchange->stream;
    }
    stream = t.stream;
    name = t.name;
    const auto chunking =
        chunk_events({bytes}, chunk ? WriteMode::Chopped : WriteMode::Lines, chunk);
    seq = stream->push(chunking.chunks, false).back();
    writes = chunking.chunk_count.front();
  }
  const auto written =
      stream->wait_written(seq, std::min(Clock::now() + std::chrono::seconds(5),
                                         options_.deadline + std::chrono::seconds(2)));
  if (!written) {
    result.ok = false;
    result.error = "the " + name + " stream ended before the bytes were written";
    return result;
  }
  result.writes.push_back(writes);
  result.done.push_back(*written);
  result.streams.push_back(name);
  return result;
}

std::size_t HttpChannel::write_stderr(std::string_view bytes, std::stop_token stop) {
  return write_stderr_bounded(STDERR_FILENO, bytes, stop);
}

}  // namespace mcpping
