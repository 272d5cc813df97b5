// The reference client's LineBuffer, in both overflow modes, fed the same bytes in one
// chunk, in the chunks the input chooses and one byte at a time. Oracle: each feeding gives
// exactly what a whole-stream model gives. Drop mode: a line longer than the cap is reported
// as dropped with its length, others without '\n' and one trailing '\r'. Split mode: an
// over-long line comes out as consecutive pieces of the cap's size whose concatenation is
// the line (a trailing '\r' of the line removed, no empty piece), and the buffer never holds
// more than the cap.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "check.hpp"
#include "chunks.hpp"
#include "line_buffer.hpp"

namespace {

using mcp::detail::LineBuffer;

// "L:<text>" per line or piece, "D:<length>" per dropped line.
using Events = std::vector<std::string>;

std::string describe(const Events& events) {
  std::string out;
  for (const auto& e : events) out += "  [" + e + "]\n";
  return out;
}

Events model(std::string_view stream, std::size_t cap, LineBuffer::Overflow overflow) {
  Events out;
  const auto line = [&](std::string_view text) {
    std::string_view content = text;
    if (!content.empty() && content.back() == '\r') content.remove_suffix(1);
    if (text.size() <= cap) {
      out.push_back("L:" + std::string(content));
    } else if (overflow == LineBuffer::Overflow::drop) {
      out.push_back("D:" + std::to_string(text.size()));
    } else {
      for (std::size_t at = 0; at < content.size(); at += cap)
        out.push_back("L:" + std::string(content.substr(at, cap)));
    }
  };
  for (;;) {
    const auto newline = stream.find('\n');
    if (newline == std::string_view::npos) break;
    line(stream.substr(0, newline));
    stream.remove_prefix(newline + 1);
  }
  if (!stream.empty()) line(stream);
  return out;
}

Events feed(const std::vector<std::string_view>& chunks, std::size_t cap,
            LineBuffer::Overflow overflow) {
  LineBuffer buffer(cap, overflow);
  Events out;
  const auto on_line = [&](std::string_view line) { out.push_back("L:" + std::string(line)); };
  const auto on_drop = [&](std::size_t length) { out.push_back("D:" + std::to_string(length)); };
  for (const auto chunk : chunks) {
    buffer.feed(chunk, on_line, on_drop);
    FUZZ_CHECK(buffer.buffered() <= cap, "buffered " + std::to_string(buffer.buffered()));
  }
  buffer.finish(on_line, on_drop);
  FUZZ_CHECK(buffer.buffered() == 0, "finish() left bytes buffered");
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mcpping::fuzz::chunked_input(data, size);
  const std::vector<std::string_view> whole{input.stream};
  const auto bytes = mcpping::fuzz::byte_chunks(input.stream);
  for (const auto overflow : {LineBuffer::Overflow::drop, LineBuffer::Overflow::split}) {
    for (const std::size_t cap : {1, 2, 5, 64}) {
      const auto want = model(input.stream, cap, overflow);
      for (const auto* chunks : {&whole, &input.chunks, &bytes}) {
        const auto got = feed(*chunks, cap, overflow);
        FUZZ_CHECK(got == want,
                   std::string(overflow == LineBuffer::Overflow::drop ? "drop" : "split") +
                       " mode, cap " + std::to_string(cap) + ", " + std::to_string(chunks->size()) +
                       " chunks\ngot:\n" + describe(got) + "want:\n" + describe(want));
      }
    }
  }
  return 0;
}
