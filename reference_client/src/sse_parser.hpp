// An incremental parser for the text/event-stream format (WHATWG HTML, "Server-sent events",
// §9.2.6 interpretation): bytes in any chunking, events out. Knows nothing about HTTP or MCP.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mcp::detail {

struct SseEvent {
  std::string type;           // the `event:` field, or "message" when there was none
  std::string data;           // the `data:` lines joined with "\n"; may be empty
  std::string last_event_id;  // the stream's last event id when the event was dispatched
};

class SseParser {
 public:
  using EventSink = std::function<void(const SseEvent&)>;

  // An event whose data (plus its current line) grows beyond max_event_bytes is discarded
  // whole, up to its terminating blank line; dropped_events() counts them.
  explicit SseParser(std::size_t max_event_bytes = 16 * 1024 * 1024);

  // Consumes one chunk; calls `sink` for every event completed by it. Lines may end in CRLF,
  // LF or CR, and a chunk may end anywhere, even between the CR and LF of one line end.
  void feed(std::string_view chunk, const EventSink& sink);

  // The connection ended: an event without its terminating blank line is discarded (as the
  // standard requires), with any `id:` it carried. The last event id and retry survive, for
  // the reconnection.
  void end_of_stream();

  // The last event ID string: the id in force when the latest event (with data or not) was
  // dispatched.
  const std::string& last_event_id() const noexcept { return last_event_id_; }
  // The reconnection time from the last valid `retry:` field, if any.
  std::optional<std::chrono::milliseconds> retry() const noexcept { return retry_; }
  std::size_t dropped_events() const noexcept { return dropped_events_; }

 private:
  void append_to_line(std::string_view text);
  void process_line(const EventSink& sink);
  void dispatch(const EventSink& sink);

  std::size_t max_event_bytes_;
  std::string line_;
  std::string data_;
  std::string type_;
  std::string id_buffer_;      // WHATWG's "last event ID buffer": the latest `id:` field
  std::string last_event_id_;  // WHATWG's "last event ID string": the buffer at the last dispatch
  std::optional<std::chrono::milliseconds> retry_;
  bool skip_lf_ = false;     // the last chunk ended in CR: a leading LF belongs to that line end
  bool first_line_ = true;   // a UTF-8 byte order mark is stripped from the very first line
  bool discarding_ = false;  // the current event exceeded the cap
  bool line_seen_ = false;   // the current line has content (kept while discarding)
  std::size_t dropped_events_ = 0;
};

}  // namespace mcp::detail
