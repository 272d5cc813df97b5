// Splits a byte stream into lines with a bound on memory: a line longer than the cap is
// either dropped (JSON-RPC frames: a partial frame is useless) or split into pieces (logs).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace mcp::detail {

class LineBuffer {
 public:
  enum class Overflow { drop, split };

  using LineHandler = std::function<void(std::string_view line)>;
  // Called once per dropped line, with its full length, when its end is seen.
  using DropHandler = std::function<void(std::size_t length)>;

  LineBuffer(std::size_t max_line_bytes, Overflow overflow);

  // Feeds bytes. Lines are reported without their '\n' and without a trailing '\r'.
  void feed(std::string_view bytes, const LineHandler& on_line, const DropHandler& on_drop);
  // End of stream: reports an unterminated last line (or its drop).
  void finish(const LineHandler& on_line, const DropHandler& on_drop);

  std::size_t buffered() const noexcept { return buffer_.size(); }

 private:
  // Reports the buffered end of a line, without a trailing '\r'.
  void end_line(const LineHandler& on_line);

  std::size_t max_;
  Overflow overflow_;
  std::string buffer_;
  bool dropping_ = false;
  bool continued_ = false;  // split mode: pieces of the current line were already emitted
  std::size_t dropped_length_ = 0;
};

}  // namespace mcp::detail
