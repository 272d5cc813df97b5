// The transport-neutral connection the interpreter runs a script over. A host (the stdio
// server, the HTTP server) implements it; the unit tests use an in-memory one.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mcpping {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

enum class WriteMode {
  Lines,      // one write per frame
  Coalesced,  // all frames in one write
  Chopped,    // each frame in `chunk`-byte writes
};

// How an HTTP host frames each message as a server-sent event (the `send` step's "sse"
// member). stdio ignores it.
struct SseFraming {
  // The `event:` field. "message" by default, as the common SDK servers write it
  // (docs/http-mock-server.md, "SSE framing"); none omits the line (the type defaults to
  // message).
  std::optional<std::string> event = "message";
  std::optional<std::string> id;      // the `id:` field
  std::optional<std::int64_t> retry;  // the `retry:` field, in ms
  std::string line_end = "\n";        // "\n", "\r\n" or "\r"
  bool field_space = true;            // "data: x"; false writes "data:x" (no space)
  bool multiline = false;             // pretty-printed JSON over several `data:` lines
  std::string prefix;                 // raw bytes written before the event
};

struct SendOptions {
  WriteMode mode = WriteMode::Lines;
  std::size_t chunk = 1;  // Chopped only
  // Where an HTTP host delivers the frames: "get" (the listening stream) or "post:<id>"
  // (the stream of the POST that carried the client request with that JSON id, compact).
  // Empty means the host's default; stdio has one route and ignores it.
  std::string route;
  SseFraming sse;
};

struct SendResult {
  bool ok = true;
  std::string error;  // e.g. "EPIPE", when !ok
  // Per frame fully written, in order: how many writes it took (a coalesced write counts
  // once for every frame in it) and when its last byte was written. Shorter than the
  // frame list when a write failed.
  std::vector<std::size_t> writes;
  std::vector<Clock::time_point> done;
  // Per frame, where an HTTP host put it ("get", "post:<id>", "sse"); empty for stdio.
  std::vector<std::string> streams;
};

// A one-shot fault an HTTP host injects on the next client POST whose message matches
// `pattern` (references resolved against `captures`).
struct PostFault {
  Json pattern;
  std::map<std::string, Json> captures;
  std::string with;   // "500", "404" or "reset"
  std::string label;  // when set, firing is recorded under it (an `event` with `fired`)
};

// What closing a stream's connection did (the disconnect step, Streamable HTTP 2025-11-25:
// the server "MAY close the connection (without terminating the SSE stream)").
struct DisconnectResult {
  bool ok = false;
  std::string error;                         // why not, when !ok
  std::optional<std::string> last_event_id;  // the last event ID the stream had written
  std::optional<std::int64_t> retry_ms;      // the last `retry:` it had written
};

// What the client did next.
struct Incoming {
  enum class Kind {
    Line,          // `text`: one complete message text, without its delimiter
    Overflow,      // a line passed the cap: `text` is its head, `bytes` how many came so far
    OverflowEnd,   // the over-long line ended: `bytes` in all
    Unterminated,  // input ended inside a line: `text` is that partial line
    Eof,           // the client closed its side (or went away)
    Timeout,       // nothing before the deadline
    Interrupted,   // the host wants the interpreter to stop (shutdown)
    Event,         // a transport event: `text` names it ("get-stream-opened", ...)
  };
  Kind kind = Kind::Timeout;
  std::string text;
  std::size_t bytes = 0;
  Clock::time_point at{};  // when it arrived
  // HTTP facts of a Line (method, path, status, lower-cased headers) or of an Event;
  // null for stdio. An Event's `"connected": false` means the client has no session or
  // stream left, which ends a run whose script is done.
  Json meta = nullptr;
};

class Channel {
 public:
  virtual ~Channel() = default;

  // Writes each frame (a message text without delimiter; the channel adds the framing).
  virtual SendResult send(const std::vector<std::string>& frames, const SendOptions& options) = 0;
  // Writes bytes exactly as given, in `chunk`-byte writes (0: one write).
  virtual SendResult send_raw(const std::string& bytes, std::size_t chunk,
                              const std::string& route) = 0;
  // The next thing the client did, or Timeout at `deadline`. After Eof, returns Eof again.
  virtual Incoming receive(Clock::time_point deadline) = 0;
  // From any thread: receive() returns `why` (Eof: the client is gone; Interrupted) once
  // everything that already arrived was taken. A host shutting down on a signal lets the
  // script finish what the client did.
  virtual void end_input(Incoming::Kind why) = 0;
  // Stop reading from the client: its writes now fail (stdio: EPIPE).
  virtual void close_input() = 0;
  // Stop writing to the client: it sees end of file.
  virtual void close_output() = 0;
  // Writes to the server's stderr on the calling thread, as a server that logs does: blocks
  // while the client does not drain it, up to `deadline`. Returns the bytes written.
  virtual std::size_t write_stderr(std::string_view bytes, Clock::time_point deadline) = 0;
  // stdio: from now on, the first time the client has written at least `min_bytes` of a
  // message but not its end, stop reading, so that its writes block once the pipe is full,
  // and report an Event "partial-message" (meta: {"bytes": how many so far}); reading resumes
  // after the next write to the client. 0 takes that back. HTTP has no shared stream to hold
  // (every client message is its own POST) and ignores it.
  virtual void hold_input_at(std::size_t /*min_bytes*/) {}
  // Arms `fault` for the next matching client POST. False when the transport has no POSTs
  // (the loader keeps such steps out of stdio scripts).
  virtual bool arm_post_fault(const PostFault& /*fault*/) { return false; }
  // Closes the connection of the stream on `route` ("post:<id>", or "get": the listening
  // stream) once what is queued on it is written, without ending the stream, and waits for
  // that; the client may resume it.
  virtual DisconnectResult disconnect(const std::string& /*route*/) {
    return {false, "this transport has no streams to resume", {}, {}};
  }
};

}  // namespace mcpping
