// Server-sent event bytes as the HTTP mock server writes them (docs/http-mock-server.md,
// "Script additions"): one message per event, framed by the `send` step's "sse" options; and
// the same bytes read back as a client reads them, for resumption.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/channel.hpp"

namespace mcpping {

// One event carrying `data` (a message text; "" gives an event with one empty `data:`
// line). Fields in order: prefix, `event:`, `id:`, `retry:`, `data:` lines, blank line.
// With `multiline`, JSON data is pretty-printed and each of its lines becomes a `data:` line.
// With CR line ends, a comment line follows, so that no lone CR ends the write.
std::string sse_event(const std::string& data, const SseFraming& framing);

// The chunks (one DataSink write each) for a run of events under a write mode: one per
// event (Lines), all in one (Coalesced), or every event cut into `chunk`-byte pieces
// (Chopped). `last_chunk[i]` is the index of the chunk that ends event i.
struct Chunking {
  std::vector<std::string> chunks;
  std::vector<std::size_t> last_chunk;
  std::vector<std::size_t> chunk_count;  // chunks per event (a coalesced chunk counts once)
};
Chunking chunk_events(const std::vector<std::string>& events, WriteMode mode, std::size_t chunk);

// What a stream wrote, read as a client's event-stream parser reads it (WHATWG HTML,
// "Interpreting an event stream"), whatever wrote it (framed events, prefixes, send_raw): the
// last event ID and reconnection time it leaves the client with, and what followed each event
// that carried an id, to replay on resumption ("messages that would have been sent after the
// last event ID").
class WrittenEvents {
 public:
  // The next bytes written, in order; lines may span calls.
  void add(std::string_view bytes);
  // The last event ID string after the last dispatched event; nullopt when empty.
  const std::optional<std::string>& last_event_id() const { return last_event_id_; }
  // The last valid `retry:` field, in ms.
  const std::optional<std::int64_t>& retry_ms() const { return retry_ms_; }
  // The bytes written after the latest event whose `id:` field was `id`; nullopt when no
  // dispatched event carried it.
  std::optional<std::string> after(const std::string& id) const;

 private:
  void line(const std::string& text);

  std::string bytes_;  // what was written, from the first event with an id on
  std::string line_;
  bool after_cr_ = false;                // a CR ended the last line: a LF next belongs to it
  std::size_t bom_seen_ = 0;             // bytes of a leading byte order mark read; 3: done
  std::optional<std::string> ended_id_;  // the blank line just read dispatched this id
  std::string id_buffer_;                // WHATWG's "last event ID buffer"
  std::optional<std::string> event_id_;  // the id field of the event being read
  std::optional<std::string> last_event_id_;
  std::optional<std::int64_t> retry_ms_;
  std::map<std::string, std::size_t> ends_;  // event id -> offset just after its event
};

}  // namespace mcpping
