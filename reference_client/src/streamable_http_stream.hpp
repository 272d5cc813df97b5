// Reading one answer of a Streamable HTTP server (a POST's JSON body or SSE stream, a resumed
// stream, the GET listening stream): the messages it carries are delivered in order, and
// whether the response the reader waits for came is remembered.
#pragma once

#include "mcp/json_rpc.hpp"
#include "mcp/log.hpp"
#include "sse_parser.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace mcp::detail {

class StreamState {
 public:
  using Deliver = std::function<void(nlohmann::json frame)>;

  // `cap`: the largest message; `deliver` takes every message read, one at a time.
  StreamState(std::size_t cap, Logger logger, Deliver deliver);

  // Feeds SSE bytes. Each `message` event's JSON is delivered (other event types are logged and
  // skipped); a response to `awaited` (when not null) sets response_seen.
  void feed(std::string_view chunk, const RequestId* awaited);
  // Delivers the message(s) in a JSON body; false if the body is not JSON. With `quiet`, only
  // a response to `awaited` is taken (an error status's body), and nothing is logged.
  bool deliver_json_body(const std::string& body, const RequestId* awaited, bool quiet = false);

  SseParser parser;
  bool response_seen = false;
  bool got_events = false;

 private:
  void on_event(const SseEvent& event, const RequestId* awaited);
  void deliver(nlohmann::json frame, const RequestId* awaited);

  Logger logger_;
  Deliver deliver_;
};

}  // namespace mcp::detail
