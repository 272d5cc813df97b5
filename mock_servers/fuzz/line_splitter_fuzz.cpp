// The stdio mock's LineSplitter, fed the same bytes in one chunk, in the chunks the input
// chooses and one byte at a time, under caps below, at and above the head size. Oracle: each
// feeding gives exactly what a whole-stream model gives (lines split at '\n', over-long ones
// reported as Overflow with their head then OverflowEnd with their length), and the buffer
// never holds more than the cap.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "check.hpp"
#include "chunks.hpp"
#include "engine/line_splitter.hpp"

namespace {

using mcpping::Clock;
using mcpping::Incoming;
using mcpping::LineSplitter;
using Kind = Incoming::Kind;

std::string describe(const std::vector<Incoming>& events) {
  std::string out;
  for (const auto& e : events) {
    out += std::to_string(static_cast<int>(e.kind)) + " bytes=" + std::to_string(e.bytes) +
           " text.size=" + std::to_string(e.text.size()) + "\n";
  }
  return out;
}

// What the splitter must report for the whole stream.
std::vector<Incoming> model(std::string_view stream, std::size_t cap) {
  std::vector<Incoming> out;
  const auto line = [&](std::string_view text, bool terminated) {
    if (text.size() > cap) {
      const auto head = text.substr(0, std::min(cap, LineSplitter::kHeadBytes));
      out.push_back(Incoming{Kind::Overflow, std::string(head), 0, {}});
      out.push_back(Incoming{Kind::OverflowEnd, {}, text.size(), {}});
    } else if (terminated) {
      out.push_back(Incoming{Kind::Line, std::string(text), 0, {}});
    } else if (!text.empty()) {
      out.push_back(Incoming{Kind::Unterminated, std::string(text), 0, {}});
    }
  };
  for (;;) {
    const auto newline = stream.find('\n');
    if (newline == std::string_view::npos) break;
    line(stream.substr(0, newline), true);
    stream.remove_prefix(newline + 1);
  }
  line(stream, false);
  return out;
}

std::vector<Incoming> split(const std::vector<std::string_view>& chunks, std::size_t cap) {
  LineSplitter splitter(cap);
  std::vector<Incoming> out;
  for (const auto chunk : chunks) {
    splitter.feed(chunk, Clock::time_point{}, out);
    FUZZ_CHECK(splitter.buffered() <= cap, "buffered " + std::to_string(splitter.buffered()));
  }
  if (auto rest = splitter.finish(Clock::time_point{})) out.push_back(std::move(*rest));
  FUZZ_CHECK(!splitter.finish(Clock::time_point{}), "a second finish() reported something");
  return out;
}

void check_against_model(const std::vector<Incoming>& got, const std::vector<Incoming>& want,
                         std::size_t cap) {
  const auto detail =
      "cap " + std::to_string(cap) + "\ngot:\n" + describe(got) + "want:\n" + describe(want);
  FUZZ_CHECK(got.size() == want.size(), detail);
  for (std::size_t i = 0; i < got.size(); ++i) {
    FUZZ_CHECK(got[i].kind == want[i].kind, detail);
    FUZZ_CHECK(got[i].text == want[i].text, detail);
    if (got[i].kind == Kind::Overflow) {
      // How many bytes had come when the cap was passed depends on the chunking, by design;
      // it is more than the cap and no more than the whole line.
      FUZZ_CHECK(got[i].bytes > cap && got[i].bytes <= want[i + 1].bytes, detail);
    } else {
      FUZZ_CHECK(got[i].bytes == want[i].bytes, detail);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mcpping::fuzz::chunked_input(data, size);
  const std::vector<std::string_view> whole{input.stream};
  const auto bytes = mcpping::fuzz::byte_chunks(input.stream);
  for (const std::size_t cap : {std::size_t{1}, std::size_t{7}, LineSplitter::kHeadBytes + 3}) {
    const auto want = model(input.stream, cap);
    check_against_model(split(whole, cap), want, cap);
    check_against_model(split(input.chunks, cap), want, cap);
    check_against_model(split(bytes, cap), want, cap);
  }
  return 0;
}
