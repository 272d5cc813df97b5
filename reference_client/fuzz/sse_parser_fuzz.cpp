// The reference client's SseParser, fed the same bytes in one chunk, in the chunks the input
// chooses and one byte at a time, then end_of_stream(). Oracles: every feeding gives the same
// events, last event ID, retry and drop count; with no cap in the way they are exactly what
// a whole-stream model of WHATWG HTML's "Interpreting an event stream" gives (BOM stripped,
// CRLF/LF/CR line ends, one leading space off a value, `id` with NUL ignored, an event
// without data not dispatched, the unterminated end discarded, and the last event ID string
// set only when an event is dispatched); under a small cap no event is larger than the cap.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check.hpp"
#include "chunks.hpp"
#include "sse_parser.hpp"

namespace {

using mcp::detail::SseEvent;
using mcp::detail::SseParser;

struct Outcome {
  std::vector<SseEvent> events;
  std::string last_event_id;
  std::optional<std::int64_t> retry_ms;
  std::size_t dropped = 0;

  bool operator==(const Outcome& o) const {
    if (events.size() != o.events.size()) return false;
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (events[i].type != o.events[i].type || events[i].data != o.events[i].data ||
          events[i].last_event_id != o.events[i].last_event_id)
        return false;
    }
    return last_event_id == o.last_event_id && retry_ms == o.retry_ms && dropped == o.dropped;
  }
};

std::string describe(const Outcome& o) {
  std::string out;
  for (const auto& e : o.events) {
    out += "  event type=" + e.type + " data.size=" + std::to_string(e.data.size()) +
           " id=" + e.last_event_id + "\n";
  }
  out += "  last_event_id=" + o.last_event_id +
         " retry=" + (o.retry_ms ? std::to_string(*o.retry_ms) : "none") +
         " dropped=" + std::to_string(o.dropped) + "\n";
  return out;
}

Outcome parse(const std::vector<std::string_view>& chunks, std::size_t cap) {
  SseParser parser(cap);
  Outcome out;
  for (const auto chunk : chunks)
    parser.feed(chunk, [&](const SseEvent& event) { out.events.push_back(event); });
  parser.end_of_stream();
  out.last_event_id = parser.last_event_id();
  if (parser.retry()) out.retry_ms = parser.retry()->count();
  out.dropped = parser.dropped_events();
  return out;
}

Outcome model(std::string_view stream) {
  Outcome out;
  if (stream.substr(0, 3) == "\xEF\xBB\xBF") stream.remove_prefix(3);
  std::string data, type, id_buffer;
  bool has_data = false;
  for (;;) {
    const auto end = stream.find_first_of("\r\n");
    if (end == std::string_view::npos) break;  // unterminated: discarded with its event
    const auto line = stream.substr(0, end);
    stream.remove_prefix(end + (stream.substr(end, 2) == "\r\n" ? 2 : 1));
    if (line.empty()) {
      out.last_event_id = id_buffer;
      if (has_data)
        out.events.push_back(SseEvent{type.empty() ? "message" : type, data, id_buffer});
      data.clear();
      type.clear();
      has_data = false;
      continue;
    }
    if (line.front() == ':') continue;
    const auto colon = line.find(':');
    const auto field = line.substr(0, colon);
    auto value = colon == std::string_view::npos ? std::string_view{} : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field == "event") {
      type = value;
    } else if (field == "data") {
      if (has_data) data += '\n';
      data += value;
      has_data = true;
    } else if (field == "id") {
      if (value.find('\0') == std::string_view::npos) id_buffer = value;
    } else if (field == "retry") {
      // ASCII digits only; the parser takes at most 12 of them (over 31 years), so that
      // the value fits its integer.
      if (!value.empty() && value.size() <= 12 &&
          value.find_first_not_of("0123456789") == std::string_view::npos)
        out.retry_ms = std::stoll(std::string(value));
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mcpping::fuzz::chunked_input(data, size);
  const std::vector<std::string_view> whole{input.stream};
  const auto bytes = mcpping::fuzz::byte_chunks(input.stream);
  for (const std::size_t cap : {std::size_t{16}, std::size_t{100}, std::size_t{1} << 24}) {
    const auto one = parse(whole, cap);
    for (const auto* chunks : {&input.chunks, &bytes}) {
      const auto many = parse(*chunks, cap);
      FUZZ_CHECK(many == one, "cap " + std::to_string(cap) + ", " + std::to_string(chunks->size()) +
                                  " chunks:\n" + describe(many) + "one chunk:\n" + describe(one));
    }
    for (const auto& event : one.events) {
      FUZZ_CHECK(event.data.size() <= cap && !event.type.empty(), describe(one));
    }
    if (cap > input.stream.size()) {
      const auto want = model(input.stream);
      FUZZ_CHECK(one == want, "parser:\n" + describe(one) + "model:\n" + describe(want));
    }
  }
  return 0;
}
