#include "line_buffer.hpp"

#include <algorithm>

namespace mcp::detail {

LineBuffer::LineBuffer(std::size_t max_line_bytes, Overflow overflow)
    : max_(std::max<std::size_t>(max_line_bytes, 1)), overflow_(overflow) {}

void LineBuffer::end_line(const LineHandler& on_line) {
  std::string_view line = buffer_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // A split line whose rest is empty (it ended at a piece boundary, or only its '\r' was
  // left) was already emitted in full.
  if (!(line.empty() && continued_)) on_line(line);
}

void LineBuffer::feed(std::string_view bytes, const LineHandler& on_line,
                      const DropHandler& on_drop) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (dropping_) {
      dropped_length_ += piece.size();
    } else if (buffer_.size() + piece.size() > max_) {
      if (overflow_ == Overflow::drop) {
        dropping_ = true;
        dropped_length_ = buffer_.size() + piece.size();
        buffer_.clear();
        buffer_.shrink_to_fit();
      } else {
        // Emit full-size pieces; keep the tail buffered so it may still join its line.
        std::string_view rest = piece;
        while (buffer_.size() + rest.size() > max_) {
          const std::size_t take = max_ - buffer_.size();
          buffer_.append(rest.substr(0, take));
          // More of the line follows this piece: a '\r' at its end is data, not a line end.
          on_line(buffer_);
          buffer_.clear();
          continued_ = true;
          rest.remove_prefix(take);
        }
        buffer_.append(rest);
      }
    } else {
      buffer_.append(piece);
    }

    if (newline == std::string_view::npos) return;
    if (dropping_) {
      on_drop(dropped_length_);
      dropping_ = false;
      dropped_length_ = 0;
    } else {
      end_line(on_line);
    }
    buffer_.clear();
    continued_ = false;
    bytes.remove_prefix(newline + 1);
  }
}

void LineBuffer::finish(const LineHandler& on_line, const DropHandler& on_drop) {
  if (dropping_) {
    on_drop(dropped_length_);
  } else if (!buffer_.empty()) {
    end_line(on_line);
  }
  buffer_.clear();
  dropping_ = false;
  dropped_length_ = 0;
  continued_ = false;
}

}  // namespace mcp::detail
