#include "http_call.hpp"

#include "sigpipe_guard.hpp"

#include <algorithm>
#include <cctype>

namespace mcp::detail {

namespace {

std::error_code to_error_code(httplib::Error error) {
  switch (error) {
    case httplib::Error::Success:
      return {};
    case httplib::Error::Connection:
      return std::make_error_code(std::errc::connection_refused);
    case httplib::Error::ConnectionTimeout:
      return std::make_error_code(std::errc::timed_out);
    case httplib::Error::Read:
      return std::make_error_code(std::errc::connection_reset);
    case httplib::Error::Write:
      return std::make_error_code(std::errc::broken_pipe);
    case httplib::Error::Canceled:
      return std::make_error_code(std::errc::operation_canceled);
    default:
      return std::make_error_code(std::errc::io_error);
  }
}

template <typename Duration>
void split(Duration d, time_t& sec, time_t& usec) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(d).count();
  sec = static_cast<time_t>(us / 1000000);
  usec = static_cast<time_t>(us % 1000000);
}

}  // namespace

std::string HttpHead::header(const std::string& name) const {
  const auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

std::string HttpHead::media_type() const {
  std::string type = header("Content-Type");
  type = type.substr(0, type.find(';'));
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  type.erase(type.begin(), std::find_if(type.begin(), type.end(), not_space));
  type.erase(std::find_if(type.rbegin(), type.rend(), not_space).base(), type.end());
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return type;
}

HttpCall::HttpCall(const std::string& origin, HttpTimeouts timeouts) : client_(origin) {
  time_t sec = 0;
  time_t usec = 0;
  split(timeouts.connect, sec, usec);
  client_.set_connection_timeout(sec, usec);
  split(timeouts.read, sec, usec);
  client_.set_read_timeout(sec, usec);
  split(timeouts.write, sec, usec);
  client_.set_write_timeout(sec, usec);
}

HttpCallResult HttpCall::run(const std::string& method, const std::string& target,
                             httplib::Headers headers, std::string body, const HeadHandler& on_head,
                             const BodyHandler& on_body) {
  HttpCallResult result;
  if (aborted_) {
    result.error = std::make_error_code(std::errc::operation_canceled);
    result.detail = "aborted";
    return result;
  }
  httplib::Request request;
  request.method = method;
  request.path = target;
  request.headers = std::move(headers);
  request.body = std::move(body);
  bool skipped_body = false;
  request.response_handler = [&](const httplib::Response& response) {
    result.head = HttpHead{response.status, response.headers};
    if (aborted_) return false;
    if (on_head && !on_head(*result.head)) {
      skipped_body = true;
      return false;
    }
    return true;
  };
  request.content_receiver = [&](const char* data, size_t length, uint64_t, uint64_t) {
    if (aborted_) return false;
    return !on_body || on_body(std::string_view(data, length));
  };

  httplib::Response response;
  httplib::Error error = httplib::Error::Success;
  {
    // httplib writes to sockets without MSG_NOSIGNAL; a peer that reset the connection
    // would otherwise kill a client-only process.
    const SigpipeGuard guard;
    client_.send(request, response, error);
  }
  if (!result.head && response.status > 0) {
    // 204 and friends skip the response handler: no body is read for them.
    result.head = HttpHead{response.status, response.headers};
    if (on_head) on_head(*result.head);
  }
  if (skipped_body && error == httplib::Error::Canceled && !aborted_) return result;
  result.error = to_error_code(error);
  result.detail =
      aborted_ && error != httplib::Error::Success ? "aborted" : httplib::to_string(error);
  if (aborted_ && result.error) result.error = std::make_error_code(std::errc::operation_canceled);
  return result;
}

void HttpCall::abort() {
  aborted_ = true;
  client_.stop();
}

}  // namespace mcp::detail
