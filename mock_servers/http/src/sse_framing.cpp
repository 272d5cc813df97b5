#include "sse_framing.hpp"

#include <algorithm>
#include <cctype>

namespace mcpping {

std::string sse_event(const std::string& data, const SseFraming& framing) {
  const auto& le = framing.line_end;
  // WHATWG: "If value starts with a U+0020 SPACE character, remove it": the space is optional.
  const std::string colon = framing.field_space ? ": " : ":";
  std::string out = framing.prefix;
  if (framing.event) out += "event" + colon + *framing.event + le;
  if (framing.id) out += "id" + colon + *framing.id + le;
  if (framing.retry) out += "retry" + colon + std::to_string(*framing.retry) + le;
  std::string body = data;
  if (framing.multiline) {
    const auto parsed = Json::parse(data, nullptr, false);
    if (!parsed.is_discarded()) body = parsed.dump(2, ' ', false, Json::error_handler_t::replace);
  }
  // A line break inside the data would end the field: every line gets its own `data:`.
  for (std::size_t start = 0, nl = 0; nl != std::string::npos; start = nl + 1) {
    nl = body.find('\n', start);
    out += "data" + colon + body.substr(start, nl == std::string::npos ? nl : nl - start) + le;
  }
  out += le;
  // WHATWG ends a line at a CR "not preceded or followed by a U+000A LINE FEED", so a parser
  // may hold a CR that ends the bytes received until the next byte shows no LF follows. A
  // comment line after the event is that next byte: without it the event would end only
  // when the server next wrote, which is what a case waits for.
  if (le == "\r") out += ":\r";
  return out;
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

void WrittenEvents::add(std::string_view bytes) {
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  for (const char c : bytes) {
    bytes_ += c;
    // A client strips one byte order mark at the start of the stream before reading lines.
    if (bom_seen_ < kByteOrderMark.size()) {
      if (c == kByteOrderMark[bom_seen_]) {
        if (++bom_seen_ == kByteOrderMark.size())
          line_.clear();
        else
          line_ += c;  // kept as text should the mark turn out incomplete
        continue;
      }
      bom_seen_ = kByteOrderMark.size();
    }
    if (c == '\n' && after_cr_) {
      // CRLF is one line end: the event ends after the LF, so a replay starts clean.
      after_cr_ = false;
      if (ended_id_) ends_[*ended_id_] = bytes_.size();
      continue;
    }
    after_cr_ = c == '\r';
    if (c == '\n' || c == '\r') {
      line(line_);
      line_.clear();
    } else {
      line_ += c;
    }
  }
}

void WrittenEvents::line(const std::string& text) {
  ended_id_.reset();
  if (text.empty()) {
    // Dispatch: the last event ID string is set even for an event without data (a priming
    // event), and the buffer keeps its value for the events that follow.
    last_event_id_ = id_buffer_.empty() ? std::nullopt : std::optional(id_buffer_);
    if (event_id_ && !event_id_->empty()) {
      ends_[*event_id_] = bytes_.size();
      ended_id_ = event_id_;
    }
    event_id_.reset();
    // Before the first event with an id nothing can be asked for again: keep no copy.
    if (ends_.empty()) bytes_.clear();
    return;
  }
  if (text.front() == ':') return;  // a comment
  const auto colon = text.find(':');
  const auto field = text.substr(0, colon);
  std::string value;
  if (colon != std::string::npos) {
    value = text.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.erase(0, 1);
  }
  if (field == "id" && value.find('\0') == std::string::npos) {
    id_buffer_ = value;
    event_id_ = value;
  } else if (field == "retry" && !value.empty() && value.size() < 16 &&
             std::all_of(value.begin(), value.end(),
                         [](unsigned char c) { return std::isdigit(c) != 0; })) {
    retry_ms_ = std::stoll(value);
  }
}

std::optional<std::string> WrittenEvents::after(const std::string& id) const {
  const auto it = ends_.find(id);
  if (it == ends_.end()) return std::nullopt;
  return bytes_.substr(it->second);
}

}  // namespace mcpping
