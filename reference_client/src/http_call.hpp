// One HTTP request over cpp-httplib whose response is consumed as it arrives (the head first,
// then the body piece by piece), abortable from any thread. The HTTP transports are built
// from these; they know nothing about MCP.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace mcp::detail {

// The status line and headers of a response.
struct HttpHead {
  int status = 0;
  httplib::Headers headers;

  bool ok() const noexcept { return status >= 200 && status < 300; }
  // The header's first value, or "" (names are case-insensitive).
  std::string header(const std::string& name) const;
  // The Content-Type's media type, lower case, without parameters: "text/event-stream".
  std::string media_type() const;
};

struct HttpCallResult {
  std::optional<HttpHead> head;  // set once the head arrived
  // {} when the response was read to its end; otherwise why not: std::errc::
  // connection_refused, timed_out, connection_reset, broken_pipe, operation_canceled (aborted,
  // or a handler returned false), io_error.
  std::error_code error;
  std::string detail;  // httplib's name for the failure, for logs
};

struct HttpTimeouts {
  std::chrono::milliseconds connect{10000};
  // Longest silence while reading the response; an idle SSE stream needs a long one.
  std::chrono::milliseconds read{30000};
  std::chrono::milliseconds write{10000};
};

class HttpCall {
 public:
  using HeadHandler = std::function<bool(const HttpHead&)>;   // false: skip the body
  using BodyHandler = std::function<bool(std::string_view)>;  // false: stop reading

  // `origin` as HttpUrl::origin() gives it: scheme://host:port.
  HttpCall(const std::string& origin, HttpTimeouts timeouts);
  HttpCall(const HttpCall&) = delete;
  HttpCall& operator=(const HttpCall&) = delete;

  // Runs one request; blocks until the response ended, failed or the call was aborted. At
  // most once per HttpCall. Never raises SIGPIPE.
  HttpCallResult run(const std::string& method, const std::string& target, httplib::Headers headers,
                     std::string body, const HeadHandler& on_head, const BodyHandler& on_body);

  // Makes run() return promptly with operation_canceled, or never start. Thread-safe. A call
  // that has not connected yet when abort() runs may still connect: calling abort() again
  // until run() returned stops it then (cpp-httplib 0.11 can only interrupt a request in
  // flight).
  void abort();
  bool aborted() const noexcept { return aborted_; }

 private:
  httplib::Client client_;
  std::atomic<bool> aborted_ = false;
};

}  // namespace mcp::detail
