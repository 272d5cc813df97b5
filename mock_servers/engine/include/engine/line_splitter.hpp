// Splits a byte stream into newline-delimited lines with a hard cap on memory: a line
// longer than the cap is reported once (with its head) and discarded up to its newline.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/channel.hpp"

namespace mcpping {

class LineSplitter {
 public:
  // How much of an over-long line is kept as its head for the transcript.
  static constexpr std::size_t kHeadBytes = 1024;

  explicit LineSplitter(std::size_t cap_bytes) : cap_(cap_bytes) {}

  // Appends to `out` one Incoming per complete line (Line), per line passing the cap
  // (Overflow, once) and per over-long line ending (OverflowEnd). `at` stamps them.
  void feed(std::string_view bytes, Clock::time_point at, std::vector<Incoming>& out);
  // At end of input: the unterminated rest, if any.
  std::optional<Incoming> finish(Clock::time_point at);

  // Bytes held now; never more than the cap.
  std::size_t buffered() const { return partial_.size(); }

 private:
  std::size_t cap_;
  std::string partial_;
  bool discarding_ = false;
  std::size_t discarded_ = 0;  // length of the over-long line so far
};

}  // namespace mcpping
