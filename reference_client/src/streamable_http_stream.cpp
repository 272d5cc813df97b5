#include "streamable_http_stream.hpp"

#include "http_support.hpp"

namespace mcp::detail {

using nlohmann::json;

StreamState::StreamState(std::size_t cap, Logger logger, Deliver deliver)
    : parser(cap), logger_(std::move(logger)), deliver_(std::move(deliver)) {}

void StreamState::feed(std::string_view chunk, const RequestId* awaited) {
  parser.feed(chunk, [&](const SseEvent& event) { on_event(event, awaited); });
}

void StreamState::on_event(const SseEvent& event, const RequestId* awaited) {
  got_events = true;
  if (event.type != "message") {
    logger_(LogLevel::debug, "ignored an SSE event of type '" + event.type + "'");
    return;
  }
  if (auto frame = parse_event_data(event.data, logger_)) {
    deliver(std::move(*frame), awaited);
  }
}

void StreamState::deliver(json frame, const RequestId* awaited) {
  if (awaited != nullptr) {
    const auto check = [&](const json& message) {
      const MessageKind kind = classify(message);
      if (kind != MessageKind::response && kind != MessageKind::error_response) return;
      if (const auto id = RequestId::from_json(message["id"]); id && *id == *awaited) {
        response_seen = true;
      }
    };
    if (frame.is_array()) {
      for (const auto& element : frame) check(element);
    } else {
      check(frame);
    }
  }
  deliver_(std::move(frame));
}

bool StreamState::deliver_json_body(const std::string& body, const RequestId* awaited, bool quiet) {
  json frame = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (frame.is_discarded()) {
    if (!quiet)
      logger_(LogLevel::warning, "skipped a JSON answer that is not JSON: " + excerpt(body));
    return false;
  }
  if (quiet) {
    // Only a response to the awaited request is taken from an error status's body.
    const auto id = frame.is_object() && frame.contains("id") ? RequestId::from_json(frame["id"])
                                                              : std::nullopt;
    const MessageKind kind = classify(frame);
    if (!id || *id != *awaited ||
        (kind != MessageKind::response && kind != MessageKind::error_response)) {
      return false;
    }
  }
  deliver(std::move(frame), awaited);
  return true;
}

}  // namespace mcp::detail
