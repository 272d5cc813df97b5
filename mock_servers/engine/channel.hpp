// The transport-neutral connection the interpreter runs a script over. A host (the stdio
// server, later the HTTP server) implements it; the unit tests use an in-memory one.
#pragma once

#include <chrono>
#include <cstddef>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace mcpping {

using Clock = std::chrono::steady_clock;

enum class WriteMode {
  Lines,      // one write per frame
  Coalesced,  // all frames in one write
  Chopped,    // each frame in `chunk`-byte writes
};

struct SendOptions {
  WriteMode mode = WriteMode::Lines;
  std::size_t chunk = 1;  // Chopped only
  // The step's "on" member: where an HTTP host delivers the frames (e.g. "get-stream").
  // Empty means the host's default; stdio has one route and ignores it.
  std::string route;
};

struct SendResult {
  bool ok = true;
  std::string error;  // e.g. "EPIPE", when !ok
  // Per frame fully written, in order: how many writes it took (a coalesced write counts
  // once for every frame in it) and when its last byte was written. Shorter than the
  // frame list when a write failed.
  std::vector<std::size_t> writes;
  std::vector<Clock::time_point> done;
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
  };
  Kind kind = Kind::Timeout;
  std::string text;
  std::size_t bytes = 0;
  Clock::time_point at{};  // when it arrived
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
  // Stop reading from the client: its writes now fail (stdio: EPIPE).
  virtual void close_input() = 0;
  // Stop writing to the client: it sees end of file.
  virtual void close_output() = 0;
  // Writes to the server's stderr. May block while the client does not drain it, but
  // returns soon after `stop` is requested. Returns the bytes written.
  virtual std::size_t write_stderr(std::string_view bytes, std::stop_token stop) = 0;
};

}  // namespace mcpping
