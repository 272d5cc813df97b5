// Server-sent event bytes as the HTTP mock server writes them (docs/http-mock-server.md,
// "Script additions"): one message per event, framed by the `send` step's "sse" options.
#pragma once

#include <string>
#include <vector>

#include "engine/channel.hpp"

namespace mcpping {

// One event carrying `data` (a message text; "" gives an event with one empty `data:`
// line). Fields in order: prefix, `event:`, `id:`, `retry:`, `data:` lines, blank line.
// With `multiline`, JSON data is pretty-printed and each of its lines becomes a `data:` line.
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

}  // namespace mcpping
