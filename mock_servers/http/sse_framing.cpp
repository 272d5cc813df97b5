#include "http/sse_framing.hpp"

#include <algorithm>

namespace mcpping {

std::string sse_event(const std::string& data, const SseFraming& framing) {
  const auto& le = framing.line_end;
  std::string out = framing.prefix;
  if (framing.event) out += "event: " + *framing.event + le;
  if (framing.id) out += "id: " + *framing.id + le;
  if (framing.retry) out += "retry: " + std::to_string(*framing.retry) + le;
  std::string body = data;
  if (framing.multiline) {
    const auto parsed = Json::parse(data, nullptr, false);
    if (!parsed.is_discarded()) body = parsed.dump(2, ' ', false, Json::error_handler_t::replace);
  }
  // A line break inside the data would end the field: every line gets its own `data:`.
  std::size_t start = 0;
  for (;;) {
    const auto nl = body.find('\n', start);
    out += "data: " + body.substr(start, nl == std::string::npos ? nl : nl - start) + le;
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out + le;
}

Chunking chunk_events(const std::vector<std::string>& events, WriteMode mode, std::size_t chunk) {
  Chunking out;
  if (mode == WriteMode::Coalesced) {
    std::string all;
    for (const auto& e : events) all += e;
    out.chunks.push_back(std::move(all));
    out.last_chunk.assign(events.size(), 0);
    out.chunk_count.assign(events.size(), 1);
    return out;
  }
  const auto piece = mode == WriteMode::Chopped ? std::max<std::size_t>(chunk, 1) : 0;
  for (const auto& e : events) {
    std::size_t n = 0;
    for (std::size_t at = 0; at < e.size(); at += piece ? piece : e.size()) {
      out.chunks.push_back(e.substr(at, piece ? piece : e.size()));
      ++n;
    }
    out.last_chunk.push_back(out.chunks.size() - 1);
    out.chunk_count.push_back(n);
  }
  return out;
}

}  // namespace mcpping
