#include "mcp/client.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "modern_session.hpp"

namespace mcp {

using nlohmann::json;

namespace {

// Revisions that use the initialize handshake, the ones this client speaks.
constexpr std::array<std::string_view, 4> kKnownVersions = {"2024-11-05", "2025-03-26",
                                                            "2025-06-18", "2025-11-25"};
// What a client that was asked for a modern version offers a legacy server it fell back to.
constexpr std::string_view kNewestLegacyVersion = "2025-11-25";

std::string excerpt(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 200) text = text.substr(0, 200) + "...";
  return text;
}

Error error_from_response(const json& error) {
  if (error.is_object()) {
    const auto code = error.find("code");
    if (code != error.end() && code->is_number_integer()) {
      const auto message = error.find("message");
      const auto data = error.find("data");
      return Error::rpc(code->get<int>(),
                        message != error.end() && message->is_string() ? message->get<std::string>()
                                                                       : std::string(),
                        data != error.end() ? *data : json());
    }
  }
  return Error(errc::invalid_response, "malformed error response: " + excerpt(error));
}

}  // namespace

class Client::Impl {
  // A request awaiting its response. Nested rather than in the anonymous namespace: GCC
  // refuses a member of an anonymous type in a class the header declares, in a unity build.
  struct Outcome {
    json result;
    std::optional<Error> error;
  };
  struct Pending {
    std::string method;
    std::promise<Outcome> promise;
  };

 public:
  Impl(std::unique_ptr<Transport> transport, ClientOptions options)
      : transport_(std::move(transport)),
        options_(std::move(options)),
        legacy_version_(options_.protocol_version) {
    if (!options_.logger) options_.logger = stderr_logger();
  }

  ~Impl() { close(); }

  json connect(Timeout timeout) {
    {
      std::lock_guard lock(mutex_);
      if (state_ != State::idle) {
        throw Error(errc::invalid_state, "connect() may be called once per client");
      }
      state_ = State::connecting;
    }
    transport_->set_failure_handler(
        [this](const json& frame, const Error& error) { on_transport_failure(frame, error); });
    try {
      transport_->start([this](const json& frame) { on_message(frame); },
                        [this](std::string reason) { on_closed(std::move(reason)); });
    } catch (...) {
      std::lock_guard lock(mutex_);
      state_ = State::closed;
      throw;
    }

    json result;
    try {
      result = modern::is_modern_version(options_.protocol_version) ? start_modern(timeout)
                                                                    : handshake(timeout);
    } catch (...) {
      close();
      throw;
    }
    {
      std::lock_guard lock(mutex_);
      if (state_ == State::closed) {
        throw Error(errc::connection_closed, "connection closed during initialization");
      }
      state_ = State::connected;
      initialize_result_ = result;
    }
    log(LogLevel::info,
        "connected; protocol version " + (modern_ ? meta_.protocol_version + " (modern)"
                                                  : result["protocolVersion"].get<std::string>()));
    if (options_.keepalive.interval.count() > 0) {
      if (modern_) {
        // SEP-2575: ping is "Removed in both directions"; transport mechanisms tell liveness.
        log(LogLevel::info, "keepalive pings are off: a modern session has no ping");
      } else {
        keepalive_thread_ = std::thread([this] { run_keepalive(); });
      }
    }
    return result;
  }

  json request(const std::string& method, const json& params, Timeout timeout,
               bool cancel_on_timeout = true) {
    if (method != "initialize") renew_session_if_expired(timeout);
    auto pending = std::make_shared<Pending>();
    pending->method = method;
    std::future<Outcome> future = pending->promise.get_future();
    std::optional<RequestId> id;
    {
      std::lock_guard lock(mutex_);
      if (state_ == State::idle) throw Error(errc::not_connected, "not connected");
      if (state_ == State::closed) throw Error(errc::connection_closed, "connection closed");
      id.emplace(next_id_++);
      pending_.emplace(*id, pending);
    }

    const json sent = modern_ ? modern::with_request_meta(params, meta_) : params;
    if (const std::error_code ec = transport_->send(make_request(*id, method, sent))) {
      take_pending(*id);
      throw Error(errc::send_failed, "could not send " + method + ": " + ec.message());
    }

    const auto limit = effective(timeout);
    if (future.wait_for(limit) == std::future_status::timeout && take_pending(*id)) {
      const std::string reason =
          method + " timed out after " + std::to_string(limit.count()) + " ms";
      log(LogLevel::warning, "request " + id->to_string() + " " + reason);
      if (cancel_on_timeout) {
        // MCP lifecycle, Timeouts: "the sender SHOULD issue a cancellation notification".
        const json cancel = make_notification("notifications/cancelled",
                                              {{"requestId", id->to_json()}, {"reason", reason}});
        if (const std::error_code ec = transport_->send(cancel)) {
          log(LogLevel::warning, "could not send notifications/cancelled: " + ec.message());
        }
      }
      throw Error(errc::timeout, reason);
    }
    // Either answered in time, or the answer won the race with the timeout and is being set.
    Outcome outcome = future.get();
    if (outcome.error) throw *outcome.error;
    return std::move(outcome.result);
  }

  void notify(const std::string& method, const json& params) {
    if (method != "notifications/initialized") renew_session_if_expired(std::nullopt);
    {
      std::lock_guard lock(mutex_);
      if (state_ == State::idle) throw Error(errc::not_connected, "not connected");
      if (state_ == State::closed) throw Error(errc::connection_closed, "connection closed");
    }
    if (const std::error_code ec = transport_->send(make_notification(method, params))) {
      throw Error(errc::send_failed, "could not send " + method + ": " + ec.message());
    }
  }

  void set_request_handler(const std::string& method, RequestHandler handler) {
    std::lock_guard lock(mutex_);
    if (handler) {
      request_handlers_[method] = std::move(handler);
    } else {
      request_handlers_.erase(method);
    }
  }

  void set_notification_handler(const std::string& method, NotificationHandler handler) {
    std::lock_guard lock(mutex_);
    if (handler) {
      notification_handlers_[method] = std::move(handler);
    } else {
      notification_handlers_.erase(method);
    }
  }

  void close() {
    {
      std::lock_guard lock(mutex_);
      close_requested_ = true;
    }
    keepalive_cv_.notify_all();
    // Ends the reader, whose close handler fails every pending request.
    transport_->close();
    std::vector<std::shared_ptr<Pending>> leftovers;
    {
      std::lock_guard lock(mutex_);
      state_ = State::closed;
      for (auto& [id, pending] : pending_) leftovers.push_back(pending);
      pending_.clear();
    }
    fail_all(leftovers, "client closed");
    if (keepalive_thread_.joinable() && keepalive_thread_.get_id() != std::this_thread::get_id()) {
      keepalive_thread_.join();
    }
  }

  bool connected() const {
    std::lock_guard lock(mutex_);
    return state_ == State::connected;
  }

  json initialize_result() const {
    std::lock_guard lock(mutex_);
    return initialize_result_;
  }

 private:
  enum class State { idle, connecting, connected, closed };

  std::chrono::milliseconds effective(Timeout timeout) const {
    const auto value = timeout.value_or(options_.request_timeout);
    return value.count() > 0 ? value : options_.request_timeout;
  }

  void log(LogLevel level, const std::string& message) const { options_.logger(level, message); }

  // Removes and returns the pending request, or null if a response or close got it first.
  std::shared_ptr<Pending> take_pending(const RequestId& id) {
    std::lock_guard lock(mutex_);
    const auto it = pending_.find(id);
    if (it == pending_.end()) return nullptr;
    auto pending = std::move(it->second);
    pending_.erase(it);
    return pending;
  }

  // The modern lifecycle: no initialize. The server/discover probe comes first ("SHOULD probe
  // with server/discover before sending any other request"), then every request carries the
  // io.modelcontextprotocol/* fields in _meta. A legacy server (any other error, or no
  // answer in time) gets the initialize handshake at the newest legacy version instead.
  json start_modern(Timeout timeout) {
    meta_.client_capabilities = options_.capabilities;
    meta_.client_info = {{"name", options_.client_info.name},
                         {"version", options_.client_info.version}};
    std::string version = options_.protocol_version;
    for (int attempt = 0;; ++attempt) {
      use_modern_version(version);
      try {
        json result = request("server/discover", json::object(), timeout);
        if (!result.is_object())
          throw Error(errc::invalid_response, "server/discover result is not an object");
        const auto chosen =
            modern::choose_version(result.value("supportedVersions", json()), version);
        if (!chosen) {
          throw Error(errc::unsupported_protocol_version,
                      "the server supports none of this client's modern versions: " +
                          excerpt(result.value("supportedVersions", json())));
        }
        use_modern_version(*chosen);
        return result;
      } catch (const Error& e) {
        const auto outcome = modern::probe_outcome(e);
        if (!outcome) throw;
        if (*outcome == modern::ProbeOutcome::legacy) {
          log(LogLevel::info, std::string("server/discover: ") + e.what() +
                                  "; a legacy server: falling back to initialize");
          modern_ = false;
          legacy_version_ = kNewestLegacyVersion;
          return handshake(timeout);
        }
        // A modern server that does not speak `version`: "Use one of the versions in its
        // advertised supported list. Do not fall back to initialize."
        const auto other =
            e.rpc_code() == modern::unsupported_protocol_version && e.data().is_object()
                ? modern::choose_version(e.data().value("supported", json()), version)
                : std::nullopt;
        if (attempt > 0 || !other || *other == version) {
          throw Error(errc::unsupported_protocol_version,
                      std::string("the modern server refused server/discover: ") + e.what());
        }
        version = *other;
      }
    }
  }

  void use_modern_version(const std::string& version) {
    if (modern_ && meta_.protocol_version == version) return;
    meta_.protocol_version = version;
    modern_ = true;
    // Streamable HTTP: "Every POST request to the MCP endpoint MUST include an
    // MCP-Protocol-Version header", the probe's included.
    transport_->set_protocol_version(version);
  }

  // initialize, then notifications/initialized; tells the transport the agreed version.
  json handshake(Timeout timeout) {
    const json params = {
        {"protocolVersion", legacy_version_},
        {"capabilities", options_.capabilities},
        {"clientInfo",
         {{"name", options_.client_info.name}, {"version", options_.client_info.version}}}};
    // The initialize request must not be cancelled (MCP cancellation utility).
    json result = request("initialize", params, timeout, /*cancel_on_timeout=*/false);
    check_initialize_result(result);
    transport_->set_protocol_version(result["protocolVersion"].get<std::string>());
    notify("notifications/initialized", json());
    return result;
  }

  // Streamable HTTP: "When a client receives HTTP 404 in response to a request containing an
  // Mcp-Session-Id, it MUST start a new session by sending a new InitializeRequest without a
  // session ID attached." Done before the next request, once, however many threads wait.
  void renew_session_if_expired(Timeout timeout) {
    {
      std::lock_guard lock(mutex_);
      if (!session_expired_ || state_ != State::connected) return;
    }
    std::lock_guard renew_lock(renew_mutex_);
    {
      std::lock_guard lock(mutex_);
      if (!session_expired_ || state_ != State::connected) return;
      session_expired_ = false;
    }
    log(LogLevel::info, "the server ended the session; initializing a new one");
    try {
      json result = handshake(timeout);
      std::lock_guard lock(mutex_);
      initialize_result_ = std::move(result);
    } catch (const Error& e) {
      std::lock_guard lock(mutex_);
      session_expired_ = true;  // the next request tries again
      throw Error(e.code(), std::string("could not start a new session: ") + e.what());
    }
  }

  void check_initialize_result(const json& result) {
    if (!result.is_object()) {
      throw Error(errc::invalid_response, "initialize result is not an object");
    }
    const auto version = result.find("protocolVersion");
    if (version == result.end() || !version->is_string()) {
      throw Error(errc::invalid_response, "initialize result has no protocolVersion");
    }
    const std::string chosen = version->get<std::string>();
    const bool known =
        chosen == legacy_version_ ||
        std::find(kKnownVersions.begin(), kKnownVersions.end(), chosen) != kKnownVersions.end();
    // MCP lifecycle: "If the client does not support the version in the server's response,
    // it SHOULD disconnect."
    if (!known) {
      throw Error(errc::unsupported_protocol_version,
                  "server chose unsupported protocol version " + chosen);
    }
  }

  // ---- incoming frames (transport reader thread) ----

  void on_message(const json& frame) {
    if (frame.is_array()) {  // a 2025-03-26 batch: each element on its own
      for (const auto& element : frame) dispatch(element);
      return;
    }
    dispatch(frame);
  }

  void dispatch(const json& frame) {
    // By shape, never by id: a frame with `method` is never a response, even when its id
    // equals the id of one of our pending requests.
    switch (classify(frame)) {
      case MessageKind::request:
        return on_request(frame);
      case MessageKind::notification:
        return on_notification(frame);
      case MessageKind::response:
      case MessageKind::error_response:
        return on_response(frame);
      case MessageKind::invalid:
        log(LogLevel::warning, "skipped a frame that is not a JSON-RPC message: " + excerpt(frame));
        return;
    }
  }

  void on_response(const json& frame) {
    const auto id_member = frame.find("id");
    const std::optional<RequestId> id =
        id_member != frame.end() ? RequestId::from_json(*id_member) : std::nullopt;
    if (!id) {
      log(LogLevel::warning, "skipped a response without a usable id: " + excerpt(frame));
      return;
    }
    const std::shared_ptr<Pending> pending = take_pending(*id);
    if (!pending) {
      log(LogLevel::warning, "skipped a response to unknown request id " + id->to_string());
      return;
    }
    Outcome outcome;
    if (const auto error = frame.find("error"); error != frame.end()) {
      outcome.error = error_from_response(*error);
    } else {
      outcome.result = frame["result"];
    }
    pending->promise.set_value(std::move(outcome));
  }

  void on_request(const json& frame) {
    const std::string method = frame["method"].get<std::string>();
    if (modern_) {
      // "Servers MUST NOT initiate JSON-RPC requests", and the client "MUST NOT write
      // JSON-RPC responses" (stdio) / "MUST NOT send JSON-RPC responses" (Streamable HTTP):
      // neither a result nor an error may go back. Logged and dropped; the session goes on.
      log(LogLevel::warning, "server request '" + method +
                                 "' in a modern session: servers do not send requests there; "
                                 "not answered");
      return;
    }
    const std::optional<RequestId> id = RequestId::from_json(frame["id"]);
    if (!id) {
      // MCP: request ids are strings or integers, never null. An error reply would need a
      // null or missing id, which is not a valid MCP message before 2025-11-25: stay silent.
      log(LogLevel::warning,
          "not answering server request '" + method + "' with invalid id " + excerpt(frame["id"]));
      return;
    }
    const auto params_member = frame.find("params");
    const json params = params_member != frame.end() ? *params_member : json();

    RequestHandler handler;
    {
      std::lock_guard lock(mutex_);
      if (const auto it = request_handlers_.find(method); it != request_handlers_.end()) {
        handler = it->second;
      }
    }

    json reply;
    if (handler) {
      try {
        reply = make_result(*id, handler(params));
      } catch (const Error& e) {
        reply = e.rpc_code() ? make_error(*id, *e.rpc_code(), e.what(), e.data())
                             : make_error(*id, rpc_code::internal_error, e.what());
      } catch (const std::exception& e) {
        reply = make_error(*id, rpc_code::internal_error, e.what());
      }
    } else if (method == "ping") {
      // MCP ping utility: "The receiver MUST respond promptly with an empty response".
      reply = make_result(*id, json::object());
    } else {
      reply = make_error(*id, rpc_code::method_not_found, "Method not found");
    }

    // Best effort: a reply that cannot be written (e.g. the server closed its stdin) is
    // dropped and logged; it never affects the caller's own pending requests.
    if (const std::error_code ec = transport_->send(reply)) {
      log(LogLevel::warning, "could not answer server request '" + method + "' id " +
                                 id->to_string() + ", dropped: " + ec.message());
    }
  }

  void on_notification(const json& frame) {
    const std::string method = frame["method"].get<std::string>();
    NotificationHandler handler;
    {
      std::lock_guard lock(mutex_);
      if (const auto it = notification_handlers_.find(method); it != notification_handlers_.end()) {
        handler = it->second;
      }
    }
    if (!handler) {
      // Includes a `ping` without id: a notification, which must not be answered.
      log(LogLevel::debug, "ignored notification '" + method + "'");
      return;
    }
    const auto params = frame.find("params");
    try {
      handler(params != frame.end() ? *params : json());
    } catch (const std::exception& e) {
      log(LogLevel::warning, "notification handler for '" + method + "' threw: " + e.what());
    }
  }

  // A message the transport accepted could not be delivered (an HTTP POST failed after
  // send() returned), or the session ended (null frame).
  void on_transport_failure(const json& frame, const Error& error) {
    if (error.code() == errc::session_expired) {
      std::lock_guard lock(mutex_);
      session_expired_ = true;
    }
    if (classify(frame) != MessageKind::request) {
      if (!frame.is_null()) {
        // Best effort, like every answer to the server: logged and dropped.
        log(LogLevel::warning, std::string("could not deliver a message: ") + error.what());
      } else {
        log(LogLevel::warning, error.what());
      }
      return;
    }
    const std::optional<RequestId> id = RequestId::from_json(frame["id"]);
    const std::shared_ptr<Pending> pending = id ? take_pending(*id) : nullptr;
    if (!pending) return;  // answered, timed out or closed meanwhile
    log(LogLevel::warning, std::string("request failed: ") + error.what());
    pending->promise.set_value({json(), error});
  }

  void on_closed(std::string reason) {
    std::vector<std::shared_ptr<Pending>> failed;
    bool lost = false;
    std::string message;
    {
      std::lock_guard lock(mutex_);
      if (!failure_reason_.empty()) reason = failure_reason_;
      lost = !close_requested_ && state_ != State::closed;
      state_ = State::closed;
      for (auto& [id, pending] : pending_) failed.push_back(pending);
      pending_.clear();
    }
    keepalive_cv_.notify_all();
    log(lost ? LogLevel::warning : LogLevel::info, "connection closed: " + reason);
    fail_all(failed, reason);
    if (lost && options_.on_connection_lost) {
      try {
        options_.on_connection_lost(Error(errc::connection_closed, "connection lost: " + reason));
      } catch (const std::exception& e) {
        log(LogLevel::error, std::string("on_connection_lost threw: ") + e.what());
      }
    }
  }

  static void fail_all(const std::vector<std::shared_ptr<Pending>>& pending,
                       const std::string& reason) {
    for (const auto& p : pending) {
      p->promise.set_value(
          {json(), Error(errc::connection_closed,
                         "connection closed before " + p->method + " was answered: " + reason)});
    }
  }

  // ---- keepalive (own thread) ----

  void run_keepalive() {
    const KeepaliveOptions& ka = options_.keepalive;
    const auto timeout = ka.timeout.count() > 0 ? ka.timeout : ka.interval;
    const int threshold = std::max(ka.failure_threshold, 1);
    int failures = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        if (keepalive_cv_.wait_for(lock, ka.interval, [this] {
              return close_requested_ || state_ == State::closed;
            })) {
          return;
        }
      }
      try {
        request("ping", json(), timeout);
        failures = 0;
      } catch (const Error& e) {
        if (e.code() == errc::connection_closed) return;
        if (e.code() == errc::rpc_error) {
          // Any error response still proves the server is alive and reading.
          log(LogLevel::info, std::string("keepalive ping answered with an error: ") + e.what());
          failures = 0;
          continue;
        }
        ++failures;
        // MCP ping utility: "Implementations SHOULD log ping failures for diagnostics".
        log(LogLevel::warning, "keepalive ping failed (" + std::to_string(failures) + "/" +
                                   std::to_string(threshold) + "): " + e.what());
        if (failures >= threshold) {
          // "Timeouts SHOULD be treated as connection failures".
          {
            std::lock_guard lock(mutex_);
            failure_reason_ =
                "keepalive: " + std::to_string(failures) + " consecutive pings failed";
          }
          log(LogLevel::error, "keepalive failure threshold reached; closing the connection");
          transport_->close();
          return;
        }
      }
    }
  }

  std::unique_ptr<Transport> transport_;
  ClientOptions options_;
  std::string legacy_version_;  // offered in initialize
  // A modern session: set by connect() before any request, read by every thread after.
  std::atomic<bool> modern_{false};
  modern::RequestMeta meta_;  // written only by connect(), before the session is shared

  mutable std::mutex mutex_;
  State state_ = State::idle;
  bool close_requested_ = false;
  bool session_expired_ = false;  // the next request initializes a new session first
  std::mutex renew_mutex_;        // one re-initialization at a time
  std::string failure_reason_;
  std::uint64_t next_id_ = 1;
  std::map<RequestId, std::shared_ptr<Pending>> pending_;
  std::map<std::string, RequestHandler> request_handlers_;
  std::map<std::string, NotificationHandler> notification_handlers_;
  json initialize_result_;

  std::condition_variable keepalive_cv_;
  std::thread keepalive_thread_;
};

Client::Client(std::unique_ptr<Transport> transport, ClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(transport), std::move(options))) {}

Client::~Client() = default;

json Client::connect(Timeout timeout) { return impl_->connect(timeout); }

json Client::call_tool(const std::string& name, const json& arguments, Timeout timeout) {
  json params = {{"name", name}};
  if (!arguments.is_null()) params["arguments"] = arguments;
  json result = impl_->request("tools/call", params, timeout);
  if (!result.is_object())
    throw Error(errc::invalid_response, "tools/call result is not an object");
  return result;
}

json Client::list_tools(const std::optional<std::string>& cursor, Timeout timeout) {
  json params;
  if (cursor) params = {{"cursor", *cursor}};
  json result = impl_->request("tools/list", params, timeout);
  if (!result.is_object())
    throw Error(errc::invalid_response, "tools/list result is not an object");
  return result;
}

json Client::ping(Timeout timeout) {
  json result = impl_->request("ping", json(), timeout);
  if (!result.is_object()) throw Error(errc::invalid_response, "ping result is not an object");
  return result;
}

json Client::request(const std::string& method, const json& params, Timeout timeout) {
  return impl_->request(method, params, timeout);
}

void Client::notify(const std::string& method, const json& params) {
  impl_->notify(method, params);
}

void Client::set_request_handler(const std::string& method, RequestHandler handler) {
  impl_->set_request_handler(method, std::move(handler));
}

void Client::set_notification_handler(const std::string& method, NotificationHandler handler) {
  impl_->set_notification_handler(method, std::move(handler));
}

void Client::close() { impl_->close(); }

bool Client::connected() const { return impl_->connected(); }

json Client::initialize_result() const { return impl_->initialize_result(); }

}  // namespace mcp
