#include "mcp/sse_transport.hpp"

#include "active_calls.hpp"
#include "http_support.hpp"
#include "http_url.hpp"
#include "sse_parser.hpp"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace mcp {

using detail::HttpHead;
using detail::SseEvent;
using nlohmann::json;

using detail::kCloseLimit;
using detail::kErrorBodyCap;

class SseTransport::Impl {
 public:
  Impl(const std::string& url, SseTransportOptions options) : options_(std::move(options)) {
    if (!options_.logger) options_.logger = stderr_logger();
    auto parsed = detail::parse_http_url(url);
    if (!parsed) throw Error(errc::connection_failed, "not an http(s) URL: " + url);
    url_ = std::move(*parsed);
  }

  ~Impl() { close(); }

  void start(MessageHandler on_message, CloseHandler on_closed) {
    std::unique_lock lock(mutex_);
    if (state_ != State::idle) throw Error(errc::invalid_state, "transport already started");
    state_ = State::starting;
    on_message_ = std::move(on_message);
    on_closed_ = std::move(on_closed);
    reader_ = std::thread([this] { read_stream(); });
    // 2024-11-05: "When a client connects, the server MUST send an endpoint event".
    changed_.wait_for(lock, options_.endpoint_timeout,
                      [&] { return endpoint_.has_value() || stream_ended_; });
    if (endpoint_) {
      state_ = State::open;
      return;
    }
    const std::string reason = stream_ended_
                                   ? end_reason_
                                   : "no endpoint event within " +
                                         std::to_string(options_.endpoint_timeout.count()) + " ms";
    state_ = State::failed;  // the reader then ends without calling on_closed
    lock.unlock();
    calls_.close(kCloseLimit);
    if (reader_.joinable()) reader_.join();
    throw Error(errc::connection_failed,
                "could not open the SSE stream at " + url_.to_string() + ": " + reason);
  }

  std::error_code send(const json& frame) {
    std::optional<detail::HttpUrl> endpoint;
    {
      std::lock_guard lock(mutex_);
      if (state_ == State::closed) return make_error_code(errc::connection_closed);
      endpoint = endpoint_;
    }
    if (!endpoint) return make_error_code(errc::not_connected);
    auto call = calls_.open(endpoint->origin(), detail::post_timeouts(options_));
    if (!call) return make_error_code(errc::connection_closed);
    httplib::Headers headers = detail::base_headers(options_);
    headers.emplace("Content-Type", std::string(detail::kJson));
    std::string body;
    const auto result = call->run("POST", endpoint->target, std::move(headers),
                                  frame.dump(-1, ' ', false, json::error_handler_t::replace),
                                  nullptr, [&](std::string_view chunk) {
                                    if (body.size() < kErrorBodyCap) {
                                      body.append(chunk.substr(0, kErrorBodyCap - body.size()));
                                    }
                                    return true;
                                  });
    if (!result.head) return result.error;
    // 2024-11-05 does not say which status the POST gets; servers commonly answer 202.
    if (result.head->ok()) return result.error;  // a body that broke off is a failed POST
    log(LogLevel::info, "POST of " + detail::describe(frame) + " answered HTTP " +
                            std::to_string(result.head->status) +
                            (body.empty() ? "" : ": " + detail::excerpt(body)));
    return http_status_error(result.head->status);
  }

  void close() {
    // Serialised: the reader thread is joined once, also when the stream ended by itself.
    std::lock_guard close_lock(close_mutex_);
    {
      std::lock_guard lock(mutex_);
      if (state_ == State::failed) return;
      state_ = State::closed;
    }
    if (!calls_.close(kCloseLimit)) log(LogLevel::error, "HTTP calls still running after close");
    if (reader_.joinable() && reader_.get_id() != std::this_thread::get_id()) reader_.join();
  }

  std::string endpoint() const {
    std::lock_guard lock(mutex_);
    return endpoint_ ? endpoint_->to_string() : std::string();
  }

 private:
  enum class State { idle, starting, open, failed, closed };

  void log(LogLevel level, const std::string& message) const { options_.logger(level, message); }

  void read_stream() {
    detail::SseParser parser(options_.max_message_bytes);
    std::string reason;
    if (auto call = calls_.open(url_.origin(), detail::stream_timeouts(options_))) {
      httplib::Headers headers = detail::base_headers(options_);
      headers.emplace("Accept", std::string(detail::kEventStream));
      bool opened = false;
      const auto result = call->run(
          "GET", url_.target, std::move(headers), std::string(),
          [&](const HttpHead& head) {
            opened = head.ok() && head.media_type() == detail::kEventStream;
            return opened;
          },
          [&](std::string_view chunk) {
            parser.feed(chunk, [&](const SseEvent& event) { on_event(event); });
            return true;
          });
      if (!result.head) {
        reason = "GET failed: " + result.detail;
      } else if (!opened) {
        reason = "GET answered HTTP " + std::to_string(result.head->status) +
                 " with Content-Type '" + result.head->header("Content-Type") + "'";
      } else {
        reason = result.error ? "the SSE stream broke: " + result.detail
                              : "the server ended the SSE stream";
      }
      if (call->aborted()) reason = "transport closed";
    } else {
      reason = "transport closed";
    }
    bool report_close = false;
    {
      std::lock_guard lock(mutex_);
      stream_ended_ = true;
      end_reason_ = reason;
      // The connection is the stream: once it ends, nothing can arrive any more. If start()
      // failed, start() reports instead.
      report_close = state_ == State::open || state_ == State::closed;
      if (state_ == State::open) state_ = State::closed;
    }
    changed_.notify_all();
    if (report_close && on_closed_) {
      try {
        on_closed_(reason);
      } catch (const std::exception& e) {
        log(LogLevel::error, std::string("close handler threw: ") + e.what());
      }
    }
  }

  void on_event(const SseEvent& event) {
    if (event.type == "endpoint") return on_endpoint(event.data);
    if (event.type != "message") {
      log(LogLevel::debug, "ignored an SSE event of type '" + event.type + "'");
      return;
    }
    {
      std::lock_guard lock(mutex_);
      if (!endpoint_) {
        log(LogLevel::warning, "skipped a message event that came before the endpoint event");
        return;
      }
    }
    auto frame = detail::parse_event_data(event.data, options_.logger);
    if (!frame) return;
    try {
      on_message_(std::move(*frame));
    } catch (const std::exception& e) {
      log(LogLevel::error, std::string("message handler threw: ") + e.what());
    }
  }

  void on_endpoint(const std::string& data) {
    std::string reference = data;
    const auto not_space = reference.find_first_not_of(" \t\r\n");
    reference = not_space == std::string::npos ? std::string() : reference.substr(not_space);
    reference.erase(reference.find_last_not_of(" \t\r\n") + 1);
    auto endpoint = detail::resolve_url(url_, reference);
    std::lock_guard lock(mutex_);
    if (endpoint_) {
      log(LogLevel::warning, "ignored a second endpoint event: " + detail::excerpt(data));
      return;
    }
    if (!endpoint) {
      log(LogLevel::error, "the endpoint event names no usable URI: " + detail::excerpt(data));
      return;
    }
    // Client messages go only to the server the stream came from.
    if (!endpoint->same_origin(url_)) {
      log(LogLevel::error, "the endpoint event names another origin: " + endpoint->to_string());
      return;
    }
    log(LogLevel::info, "endpoint: " + endpoint->to_string());
    endpoint_ = std::move(endpoint);
    changed_.notify_all();
  }

  SseTransportOptions options_;
  detail::HttpUrl url_;
  detail::ActiveCalls calls_;

  std::mutex close_mutex_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  State state_ = State::idle;
  std::optional<detail::HttpUrl> endpoint_;
  bool stream_ended_ = false;
  std::string end_reason_;
  MessageHandler on_message_;
  CloseHandler on_closed_;
  std::thread reader_;
};

SseTransport::SseTransport(const std::string& url, SseTransportOptions options)
    : impl_(std::make_unique<Impl>(url, std::move(options))) {}

SseTransport::~SseTransport() = default;

void SseTransport::start(MessageHandler on_message, CloseHandler on_closed) {
  impl_->start(std::move(on_message), std::move(on_closed));
}

std::error_code SseTransport::send(const json& frame) { return impl_->send(frame); }

void SseTransport::close() { impl_->close(); }

std::string SseTransport::endpoint() const { return impl_->endpoint(); }

}  // namespace mcp
