// The HTTP mock's WrittenEvents (http/sse_framing.hpp): what a stream wrote, read back as a
// client's event-stream parser reads it, to answer a resumption. Fed the same bytes in one
// chunk, in the chunks the input chooses and one byte at a time. Oracles: every feeding
// gives the same last event ID, retry and replay for every id; and they are what a
// whole-stream model of WHATWG HTML's "Interpreting an event stream" gives (BOM stripped,
// CRLF/LF/CR line ends, the last event ID string set at each blank line, the replay after an
// event being exactly the bytes written after its blank line).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check.hpp"
#include "chunks.hpp"
#include "sse_framing.hpp"

namespace {

using mcpping::WrittenEvents;

struct Model {
  std::optional<std::string> last_event_id;
  std::optional<std::int64_t> retry_ms;
  std::map<std::string, std::string> replay;  // event id -> bytes after its event
};

Model model(std::string_view stream) {
  Model out;
  const std::string_view all = stream;
  std::size_t pos = stream.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  std::string id_buffer;
  std::optional<std::string> event_id;
  for (;;) {
    const auto end = all.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) break;  // an unterminated line is not read yet
    const auto line = all.substr(pos, end - pos);
    pos = end + (all.substr(end, 2) == "\r\n" ? 2 : 1);
    if (line.empty()) {
      out.last_event_id = id_buffer.empty() ? std::nullopt : std::optional(id_buffer);
      if (event_id && !event_id->empty()) out.replay[*event_id] = std::string(all.substr(pos));
      event_id.reset();
      continue;
    }
    if (line.front() == ':') continue;
    const auto colon = line.find(':');
    const auto field = line.substr(0, colon);
    auto value = colon == std::string_view::npos ? std::string_view{} : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field == "id" && value.find('\0') == std::string_view::npos) {
      id_buffer = value;
      event_id = std::string(value);
    } else if (field == "retry" && !value.empty() && value.size() < 16 &&
               value.find_first_not_of("0123456789") == std::string_view::npos) {
      out.retry_ms = std::stoll(std::string(value));
    }
  }
  return out;
}

std::string show(const std::optional<std::string>& text) {
  return text ? "\"" + *text + "\"" : std::string("none");
}

void check(const WrittenEvents& got, const Model& want, const std::vector<std::string>& ids,
           std::size_t chunk_count) {
  const auto where = std::to_string(chunk_count) + " chunks: ";
  FUZZ_CHECK(
      got.last_event_id() == want.last_event_id,
      where + "last event id " + show(got.last_event_id()) + ", model " + show(want.last_event_id));
  FUZZ_CHECK(got.retry_ms() == want.retry_ms, where + "retry differs from the model");
  for (const auto& id : ids) {
    const auto it = want.replay.find(id);
    const auto expected = it == want.replay.end() ? std::nullopt : std::optional(it->second);
    FUZZ_CHECK(got.after(id) == expected, where + "after(\"" + id + "\") " + show(got.after(id)) +
                                              ", model " + show(expected));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = mcpping::fuzz::chunked_input(data, size);
  const auto want = model(input.stream);
  // Every id the model replays after, and two it does not.
  std::vector<std::string> ids{"", "never-written"};
  for (const auto& [id, bytes] : want.replay) ids.push_back(id);
  const std::vector<std::string_view> whole{input.stream};
  const auto bytes = mcpping::fuzz::byte_chunks(input.stream);
  for (const auto* chunks : {&whole, &input.chunks, &bytes}) {
    WrittenEvents events;
    for (const auto chunk : *chunks) events.add(chunk);
    check(events, want, ids, chunks->size());
  }
  return 0;
}
