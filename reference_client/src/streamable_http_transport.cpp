#include "mcp/streamable_http_transport.hpp"

#include "active_calls.hpp"
#include "http_support.hpp"
#include "http_url.hpp"
#include "mcp/json_rpc.hpp"
#include "modern_http_headers.hpp"
#include "modern_session.hpp"
#include "sse_parser.hpp"
#include "streamable_http_session.hpp"
#include "streamable_http_stream.hpp"

#include <atomic>
#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>

namespace mcp {

using detail::ActiveCalls;
using detail::HttpHead;
using detail::SessionView;
using detail::SseParser;
using detail::StreamState;
using nlohmann::json;

using detail::kCloseLimit;
using detail::kErrorBodyCap;

namespace {

std::string method_of(const json& frame) {
  if (!frame.is_object()) return {};
  const auto method = frame.find("method");
  return method != frame.end() && method->is_string() ? method->get<std::string>() : std::string();
}

void join(std::thread& thread) {
  if (thread.joinable() && thread.get_id() != std::this_thread::get_id()) thread.join();
}

}  // namespace

class StreamableHttpTransport::Impl {
 public:
  Impl(const std::string& url, StreamableHttpOptions options) : options_(std::move(options)) {
    if (!options_.logger) options_.logger = stderr_logger();
    auto parsed = detail::parse_http_url(url);
    if (!parsed) throw Error(errc::connection_failed, "not an http(s) URL: " + url);
    url_ = std::move(*parsed);
  }

  ~Impl() { close(); }

  void start(MessageHandler on_message, CloseHandler on_closed) {
    std::lock_guard lock(mutex_);
    if (started_ || closing_) throw Error(errc::invalid_state, "transport already started");
    on_message_ = std::move(on_message);
    on_closed_ = std::move(on_closed);
    started_ = true;
  }

  std::error_code send(const json& frame) {
    {
      std::lock_guard lock(mutex_);
      if (closing_) return make_error_code(errc::connection_closed);
      if (!started_) return make_error_code(errc::not_connected);
    }
    const MessageKind kind = classify(frame);
    if (kind == MessageKind::request) return start_exchange(frame);
    const std::string method = method_of(frame);
    if (session().modern) {
      // "The client MUST NOT send JSON-RPC responses" (2026-07-28), whoever asks for one.
      if (kind == MessageKind::response || kind == MessageKind::error_response) {
        log(LogLevel::warning, "not posting " + detail::describe(frame) +
                                   ": a 2026-07-28 client sends no JSON-RPC responses");
        return make_error_code(errc::send_failed);
      }
      // "On Streamable HTTP, closing the SSE response stream is itself the cancellation
      // signal and no notifications/cancelled message is expected."
      if (method == "notifications/cancelled") {
        stop_exchange(frame);
        return {};
      }
    }
    const std::error_code error = post_message(frame);
    // MCP transports: the client MAY open the GET stream; it needs the session that
    // notifications/initialized completes.
    if (!error && method == "notifications/initialized") start_get_stream();
    if (method == "notifications/cancelled") stop_exchange(frame);
    return error;
  }

  void close() {
    std::list<std::shared_ptr<Exchange>> exchanges;
    std::shared_ptr<GetStream> get;
    std::string session;
    bool started = false;
    {
      std::lock_guard lock(mutex_);
      if (closing_) return;
      closing_ = true;
      exchanges.swap(exchanges_);
      get = std::move(get_);
      session = session_id_;
      started = started_;
    }
    wake_.notify_all();
    if (!calls_.close(kCloseLimit)) {
      log(LogLevel::error, "HTTP calls still running after close; waiting for them");
    }
    for (auto& exchange : exchanges) join(exchange->thread);
    if (get) join(get->thread);
    if (started && !session.empty()) end_session(session);
    if (started && on_closed_) {
      try {
        on_closed_("transport closed");
      } catch (const std::exception& e) {
        log(LogLevel::error, std::string("close handler threw: ") + e.what());
      }
    }
  }

  void set_failure_handler(FailureHandler handler) {
    std::lock_guard lock(mutex_);
    on_failure_ = std::move(handler);
  }

  void set_protocol_version(const std::string& version) {
    std::lock_guard lock(mutex_);
    protocol_version_ = version;
    modern_ = modern::is_modern_version(version);
  }

  std::string session_id() const {
    std::lock_guard lock(mutex_);
    return session_id_;
  }

 private:
  // One request POST and the reading of its answer, on a thread of its own.
  struct Exchange {
    Exchange(json request_frame, RequestId request_id)
        : request(std::move(request_frame)), id(std::move(request_id)) {}
    json request;
    RequestId id;
    std::thread thread;
    std::shared_ptr<detail::HttpCall> call;  // the call in progress, guarded by mutex_
    std::atomic<bool> stopped = false;       // cancelled, or the session it belongs to ended
    std::atomic<bool> finished = false;
  };

  struct GetStream {
    std::thread thread;
    std::shared_ptr<detail::HttpCall> call;  // guarded by mutex_
    std::atomic<bool> stopped = false;
  };

  void log(LogLevel level, const std::string& message) const { options_.logger(level, message); }

  SessionView session() const {
    std::lock_guard lock(mutex_);
    return {session_id_, protocol_version_, session_lost_, modern_};
  }

  // ---- delivery ----

  void deliver(json frame) {
    // One frame at a time, whichever stream it came from (Transport contract).
    std::lock_guard lock(deliver_mutex_);
    try {
      on_message_(std::move(frame));
    } catch (const std::exception& e) {
      log(LogLevel::error, std::string("message handler threw: ") + e.what());
    }
  }

  // A reader of one answer, delivering what it carries.
  StreamState stream_state() {
    return StreamState(options_.max_message_bytes, options_.logger,
                       [this](json frame) { deliver(std::move(frame)); });
  }

  void report(const json& frame, const Error& error) {
    FailureHandler handler;
    {
      std::lock_guard lock(mutex_);
      handler = on_failure_;
    }
    if (!handler) {
      log(LogLevel::warning, error.what());
      return;
    }
    try {
      handler(frame, error);
    } catch (const std::exception& e) {
      log(LogLevel::error, std::string("failure handler threw: ") + e.what());
    }
  }

  // "When a client receives HTTP 404 in response to a request containing an Mcp-Session-Id,
  // it MUST start a new session": forget the session (the client initializes again) and stop
  // the GET stream that belonged to it. Returns false if that session was already gone.
  bool expire_session(const std::string& session) {
    std::shared_ptr<detail::HttpCall> get_call;
    {
      std::lock_guard lock(mutex_);
      if (session.empty() || session_id_ != session) return false;
      session_id_.clear();
      session_lost_ = true;
      if (get_) {
        get_->stopped = true;
        get_call = get_->call;
      }
    }
    wake_.notify_all();
    if (get_call) get_call->abort();
    log(LogLevel::warning, "the server ended session " + session + " (HTTP 404)");
    return true;
  }

  // ---- notifications and responses: one POST, answered at once ----

  std::error_code post_message(const json& frame) {
    const SessionView session = this->session();
    // Posting without the ended session would only earn a 400.
    if (session.lost) return make_error_code(errc::session_expired);
    auto call = calls_.open(url_.origin(), detail::post_timeouts(options_));
    if (!call) return make_error_code(errc::connection_closed);
    std::string body;
    const auto result = call->run("POST", url_.target, headers_for(frame, &session),
                                  frame.dump(-1, ' ', false, json::error_handler_t::replace),
                                  nullptr, [&](std::string_view chunk) {
                                    if (body.size() < kErrorBodyCap)
                                      body.append(chunk.substr(0, kErrorBodyCap - body.size()));
                                    return true;
                                  });
    if (!result.head) {
      log(LogLevel::debug, "POST of " + detail::describe(frame) + " failed: " + result.detail);
      return result.error;
    }
    const int status = result.head->status;
    if (status == 404 && !session.id.empty()) {
      if (expire_session(session.id)) {
        report(json(), Error(errc::session_expired, "the server ended the session (HTTP 404)"));
      }
      return make_error_code(errc::session_expired);
    }
    if (result.head->ok()) {
      // A 2xx whose body broke off is no acceptance the client can rely on.
      if (result.error)
        log(LogLevel::debug, "POST of " + detail::describe(frame) + " broke off: " + result.detail);
      return result.error;
    }
    // The body MAY be a JSON-RPC error response without id: worth a log line, not a delivery.
    log(LogLevel::info, "POST of " + detail::describe(frame) + " answered HTTP " +
                            std::to_string(status) +
                            (body.empty() ? "" : ": " + detail::excerpt(body)));
    return http_status_error(status);
  }

  // ---- requests: a POST whose answer is JSON or an SSE stream, read in the background ----

  std::error_code start_exchange(const json& frame) {
    reap_exchanges();
    const auto id = RequestId::from_json(frame["id"]);
    if (!id) return make_error_code(errc::invalid_response);
    auto exchange = std::make_shared<Exchange>(frame, *id);
    std::lock_guard lock(mutex_);
    if (closing_) return make_error_code(errc::connection_closed);
    exchanges_.push_back(exchange);
    exchange->thread = std::thread([this, exchange] {
      run_exchange(*exchange);
      exchange->finished = true;
    });
    return {};
  }

  void reap_exchanges() {
    std::list<std::shared_ptr<Exchange>> done;
    {
      std::lock_guard lock(mutex_);
      for (auto it = exchanges_.begin(); it != exchanges_.end();) {
        if ((*it)->finished) {
          done.push_back(std::move(*it));
          it = exchanges_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (auto& exchange : done) join(exchange->thread);
  }

  // The client gave up on a request (notifications/cancelled): stop reading its answer.
  void stop_exchange(const json& cancelled) {
    const auto params = cancelled.find("params");
    if (params == cancelled.end() || !params->is_object() || !params->contains("requestId")) return;
    const auto id = RequestId::from_json((*params)["requestId"]);
    if (!id) return;
    std::shared_ptr<detail::HttpCall> call;
    {
      std::lock_guard lock(mutex_);
      for (const auto& exchange : exchanges_) {
        if (exchange->id == *id) {
          exchange->stopped = true;
          call = exchange->call;
        }
      }
    }
    wake_.notify_all();
    if (call) call->abort();
  }

  bool exchange_over(const Exchange& exchange) const {
    std::lock_guard lock(mutex_);
    return closing_ || exchange.stopped;
  }

  void set_call(Exchange& exchange, std::shared_ptr<detail::HttpCall> call) {
    std::lock_guard lock(mutex_);
    exchange.call = std::move(call);
  }

  // A POST's answer as it is read: the kind of its body, a JSON or error body, and the
  // reader of an SSE stream.
  struct PostAnswer {
    enum class Body { none, json, sse, error } mode = Body::none;
    std::string body;
    bool too_large = false;
    StreamState state;
  };

  void run_exchange(Exchange& exchange) {
    const json& frame = exchange.request;
    // The initialize request starts a session: it carries neither a previous session id nor a
    // protocol version header (a re-initialization after 404 starts afresh).
    const bool initialize = method_of(frame) == "initialize";
    const SessionView session = initialize ? SessionView{} : this->session();
    if (session.lost) {
      // Posting without the ended session would only earn a 400: the client must initialize.
      return report(frame,
                    Error(errc::session_expired, "POST of " + detail::describe(frame) +
                                                     ": the session ended; initialize first"));
    }
    auto call = calls_.open(url_.origin(), detail::stream_timeouts(options_));
    if (!call) return;
    set_call(exchange, call.get());
    if (exchange.stopped) call->abort();

    using Body = PostAnswer::Body;
    PostAnswer answer{Body::none, {}, false, stream_state()};
    const auto on_head = [&](const HttpHead& head) {
      if (initialize && head.ok()) capture_session(head);
      const std::string type = head.media_type();
      if (!head.ok()) {
        answer.mode = Body::error;
      } else if (type == detail::kEventStream) {
        answer.mode = Body::sse;
      } else if (type == detail::kJson) {
        answer.mode = Body::json;
      }
      return true;
    };
    const auto on_body = [&](std::string_view chunk) {
      if (answer.mode == Body::sse) {
        answer.state.feed(chunk, &exchange.id);
        return true;
      }
      const std::size_t cap =
          answer.mode == Body::json ? options_.max_message_bytes : kErrorBodyCap;
      if (answer.body.size() + chunk.size() > cap) {
        answer.too_large = true;
        return answer.mode != Body::json;  // stop reading a JSON answer that cannot be used
      }
      answer.body.append(chunk);
      return true;
    };
    const auto result =
        call->run("POST", url_.target, headers_for(frame, initialize ? nullptr : &session),
                  frame.dump(-1, ' ', false, json::error_handler_t::replace), on_head, on_body);
    if (exchange_over(exchange)) return;
    conclude_post(exchange, session, answer, result);
  }

  // A POST's answer, read: the response was delivered, or the request fails, saying why.
  void conclude_post(Exchange& exchange, const SessionView& session, PostAnswer& answer,
                     const detail::HttpCallResult& result) {
    const json& frame = exchange.request;
    const std::string what = "POST of " + detail::describe(frame);
    if (!result.head) {
      return report(frame, Error(errc::send_failed, what + " failed: " + result.detail));
    }
    const int status = result.head->status;
    if (status == 404 && !session.id.empty()) {
      expire_session(session.id);
      return report(
          frame, Error(errc::session_expired, what + ": the server ended the session (HTTP 404)"));
    }
    switch (answer.mode) {
      case PostAnswer::Body::json:
        return conclude_json(exchange, what, answer, result);
      case PostAnswer::Body::sse:
        return conclude_sse(exchange, session, what, answer, result);
      case PostAnswer::Body::error:
        // An error status may still carry the JSON-RPC error response to this request.
        if (!answer.too_large &&
            answer.state.deliver_json_body(answer.body, &exchange.id, /*quiet=*/true) &&
            answer.state.response_seen) {
          return;
        }
        return report(frame,
                      Error(errc::send_failed,
                            what + " answered HTTP " + std::to_string(status) +
                                (answer.body.empty() ? "" : ": " + detail::excerpt(answer.body))));
      case PostAnswer::Body::none:
        return report(
            frame, Error(errc::invalid_response, what + " answered HTTP " + std::to_string(status) +
                                                     " with Content-Type '" +
                                                     result.head->header("Content-Type") + "'"));
    }
  }

  void conclude_json(Exchange& exchange, const std::string& what, PostAnswer& answer,
                     const detail::HttpCallResult& result) {
    const json& frame = exchange.request;
    if (answer.too_large) {
      return report(frame, Error(errc::invalid_response,
                                 what + ": the JSON answer exceeds " +
                                     std::to_string(options_.max_message_bytes) + " bytes"));
    }
    if (result.error) return report(frame, Error(errc::send_failed, what + ": " + result.detail));
    answer.state.deliver_json_body(answer.body, &exchange.id);
    if (!answer.state.response_seen) {
      report(frame, Error(errc::invalid_response, what + ": the JSON answer holds no response"));
    }
  }

  // An SSE answer that ended before the response is resumed (a session-based revision, an
  // event with an id seen), or the request fails.
  void conclude_sse(Exchange& exchange, const SessionView& session, const std::string& what,
                    PostAnswer& answer, const detail::HttpCallResult& result) {
    const json& frame = exchange.request;
    if (answer.state.response_seen) return;
    answer.state.parser.end_of_stream();
    // 2026-07-28: "Resumable SSE streams via Last-Event-ID are not supported."
    if (!session.modern && !answer.state.parser.last_event_id().empty()) {
      // 2025-11-25: "Resumption is always via HTTP GET with Last-Event-ID."
      if (resume(exchange, answer.state)) return;
      if (exchange_over(exchange)) return;
      if (this->session().lost) {
        return report(
            frame, Error(errc::session_expired, what + ": the session ended before the response"));
      }
    }
    report(frame, Error(errc::connection_closed,
                        what + ": the SSE stream ended before the response" +
                            (result.error ? " (" + result.detail + ")" : std::string())));
  }

  // The headers of a POST carrying `frame`; `session` null for initialize, which starts afresh
  // (a legacy session, also after a modern probe a legacy server refused).
  httplib::Headers headers_for(const json& frame, const SessionView* session) const {
    if (session != nullptr && session->modern)
      return detail::modern_post_headers(options_, session->version, frame);
    return detail::post_headers(options_, session);
  }

  // A successful initialize answer starts a session, with or without an id.
  void capture_session(const HttpHead& head) {
    std::string id = head.header("Mcp-Session-Id");
    if (!id.empty() && !detail::valid_session_id(id)) {
      log(LogLevel::warning, "ignored a session id with characters outside 0x21-0x7E");
      id.clear();
    }
    std::lock_guard lock(mutex_);
    session_id_ = std::move(id);
    session_lost_ = false;
  }

  // Waits `delay` unless the transport closes or `stopped` is set first; true if it waited.
  bool pause(std::chrono::milliseconds delay, const std::atomic<bool>& stopped) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_for(lock, delay, [&] { return closing_ || stopped.load(); });
  }

  std::chrono::milliseconds reconnect_delay(const SseParser& parser) const {
    // "The client MUST respect the retry field, waiting the given number of milliseconds
    // before attempting to reconnect."
    return parser.retry().value_or(options_.reconnect_delay);
  }

  // One GET of the stream with Last-Event-ID; events go through `state`.
  struct GetOutcome {
    detail::HttpCallResult result;
    bool opened = false;
  };

  GetOutcome get_stream(const std::shared_ptr<detail::HttpCall>& call, const SessionView& session,
                        StreamState& state, const RequestId* awaited) {
    httplib::Headers request_headers = detail::session_headers(options_, &session);
    request_headers.emplace("Accept", std::string(detail::kEventStream));
    if (!state.parser.last_event_id().empty()) {
      request_headers.emplace("Last-Event-ID", state.parser.last_event_id());
    }
    GetOutcome outcome;
    outcome.result = call->run(
        "GET", url_.target, std::move(request_headers), std::string(),
        [&](const HttpHead& head) {
          outcome.opened = head.ok() && head.media_type() == detail::kEventStream;
          return outcome.opened;
        },
        [&](std::string_view chunk) {
          state.feed(chunk, awaited);
          return true;
        });
    state.parser.end_of_stream();
    return outcome;
  }

  // Resumes a POST's SSE stream that broke before its response; true once it arrived.
  bool resume(Exchange& exchange, StreamState& state) {
    int failures = 0;
    while (failures < options_.max_reconnect_attempts) {
      if (!pause(reconnect_delay(state.parser), exchange.stopped)) return false;
      const SessionView session = this->session();
      if (session.lost) return false;
      auto call = calls_.open(url_.origin(), detail::stream_timeouts(options_));
      if (!call) return false;
      set_call(exchange, call.get());
      if (exchange.stopped) call->abort();
      state.got_events = false;
      const GetOutcome outcome = get_stream(call.get(), session, state, &exchange.id);
      if (exchange_over(exchange)) return false;
      if (state.response_seen) return true;
      const int status = outcome.result.head ? outcome.result.head->status : 0;
      if (status == 404 && !session.id.empty()) {
        expire_session(session.id);
        return false;
      }
      if (status == 405) return false;  // the server cannot resume streams
      failures = state.got_events ? 0 : failures + 1;
      log(LogLevel::info, "resuming the stream of " + detail::describe(exchange.request) + ": " +
                              (outcome.opened ? "stream ended" : "HTTP " + std::to_string(status)));
    }
    return false;
  }

  // ---- the GET listening stream ----

  void start_get_stream() {
    if (!options_.open_get_stream) return;
    std::shared_ptr<GetStream> previous;
    {
      std::lock_guard lock(mutex_);
      if (closing_) return;
      previous = std::move(get_);
      if (previous) previous->stopped = true;
      auto stream = std::make_shared<GetStream>();
      get_ = stream;
      stream->thread = std::thread([this, stream] { run_get_stream(*stream); });
    }
    // Only after a re-initialization: the stream of the old session goes.
    if (previous) {
      wake_.notify_all();
      std::shared_ptr<detail::HttpCall> call;
      {
        std::lock_guard lock(mutex_);
        call = previous->call;
      }
      if (call) call->abort();
      join(previous->thread);
    }
  }

  void run_get_stream(GetStream& stream) {
    StreamState state = stream_state();
    int failures = 0;
    for (;;) {
      const SessionView session = this->session();
      if (session.lost) return;
      auto call = calls_.open(url_.origin(), detail::stream_timeouts(options_));
      if (!call) return;
      {
        std::lock_guard lock(mutex_);
        stream.call = call.get();
      }
      if (stream.stopped) return;
      const GetOutcome outcome = get_stream(call.get(), session, state, nullptr);
      if (stream.stopped || closing()) return;
      const int status = outcome.result.head ? outcome.result.head->status : 0;
      if (status == 405) {
        // "...or else return HTTP 405 Method Not Allowed": the server offers no GET stream.
        log(LogLevel::info, "the server offers no GET stream (HTTP 405)");
        return;
      }
      if (status == 404 && !session.id.empty()) {
        if (expire_session(session.id)) {
          report(json(), Error(errc::session_expired, "the server ended the session (HTTP 404)"));
        }
        return;
      }
      if (outcome.opened) {
        failures = 0;
        log(LogLevel::debug, "the GET stream ended (" + outcome.result.detail + "); reconnecting");
      } else {
        ++failures;
        log(LogLevel::warning,
            "could not open the GET stream (" +
                (status != 0 ? "HTTP " + std::to_string(status) : outcome.result.detail) +
                "), attempt " + std::to_string(failures) + "/" +
                std::to_string(options_.max_reconnect_attempts));
        if (failures >= options_.max_reconnect_attempts) return;
      }
      if (!pause(reconnect_delay(state.parser), stream.stopped)) return;
    }
  }

  bool closing() const {
    std::lock_guard lock(mutex_);
    return closing_;
  }

  // ---- shutdown ----

  void end_session(const std::string& session) {
    std::string version;
    {
      std::lock_guard lock(mutex_);
      version = protocol_version_;
    }
    detail::delete_session(url_, options_, session, version);
  }

  StreamableHttpOptions options_;
  detail::HttpUrl url_;
  ActiveCalls calls_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;  // reconnect waits end early on close or stop
  bool started_ = false;
  bool closing_ = false;
  std::string session_id_;
  bool session_lost_ = false;
  std::string protocol_version_;
  bool modern_ = false;  // protocol_version_ is modern: the 2026-07-28 binding
  MessageHandler on_message_;
  CloseHandler on_closed_;
  FailureHandler on_failure_;
  std::list<std::shared_ptr<Exchange>> exchanges_;
  std::shared_ptr<GetStream> get_;

  std::mutex deliver_mutex_;
};

StreamableHttpTransport::StreamableHttpTransport(const std::string& url,
                                                 StreamableHttpOptions options)
    : impl_(std::make_unique<Impl>(url, std::move(options))) {}

StreamableHttpTransport::~StreamableHttpTransport() = default;

void StreamableHttpTransport::start(MessageHandler on_message, CloseHandler on_closed) {
  impl_->start(std::move(on_message), std::move(on_closed));
}

std::error_code StreamableHttpTransport::send(const json& frame) { return impl_->send(frame); }

void StreamableHttpTransport::close() { impl_->close(); }

void StreamableHttpTransport::set_failure_handler(FailureHandler handler) {
  impl_->set_failure_handler(std::move(handler));
}

void StreamableHttpTransport::set_protocol_version(const std::string& version) {
  impl_->set_protocol_version(version);
}

std::string StreamableHttpTransport::session_id() const { return impl_->session_id(); }

}  // namespace mcp
