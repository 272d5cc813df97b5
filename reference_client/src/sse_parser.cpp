#include "sse_parser.hpp"

#include <algorithm>
#include <cstdint>

namespace mcp::detail {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// The standard accepts a retry value made of ASCII digits only.
std::optional<std::chrono::milliseconds> parse_retry(std::string_view value) {
  if (value.empty() || value.size() > 12) return std::nullopt;
  std::int64_t ms = 0;
  for (const char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    ms = ms * 10 + (c - '0');
  }
  return std::chrono::milliseconds(ms);
}

}  // namespace

SseParser::SseParser(std::size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {}

void SseParser::feed(std::string_view chunk, const EventSink& sink) {
  std::size_t pos = 0;
  if (skip_lf_ && !chunk.empty()) {
    if (chunk.front() == '\n') pos = 1;
    skip_lf_ = false;
  }
  while (pos < chunk.size()) {
    std::size_t end = chunk.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) {
      append_to_line(chunk.substr(pos));
      return;
    }
    append_to_line(chunk.substr(pos, end - pos));
    if (chunk[end] == '\r') {
      if (end + 1 == chunk.size()) {
        skip_lf_ = true;
      } else if (chunk[end + 1] == '\n') {
        ++end;
      }
    }
    pos = end + 1;
    process_line(sink);
  }
}

void SseParser::end_of_stream() {
  // An id read in the event the end cut off never became the last event ID string.
  id_buffer_ = last_event_id_;
  line_.clear();
  data_.clear();
  type_.clear();
  skip_lf_ = false;
  discarding_ = false;
  line_seen_ = false;
}

void SseParser::append_to_line(std::string_view text) {
  if (!text.empty()) line_seen_ = true;
  if (discarding_) return;
  if (line_.size() + data_.size() + text.size() > max_event_bytes_) {
    discarding_ = true;
    line_.clear();
    data_.clear();
    return;
  }
  line_.append(text);
}

void SseParser::process_line(const EventSink& sink) {
  if (first_line_) {
    first_line_ = false;
    if (std::string_view(line_).substr(0, kByteOrderMark.size()) == kByteOrderMark) {
      line_.erase(0, kByteOrderMark.size());
    }
  }
  const bool blank = !line_seen_;
  line_seen_ = false;
  if (discarding_) {
    // Everything up to the blank line that ends the oversized event is dropped with it.
    if (blank) {
      last_event_id_ = id_buffer_;
      discarding_ = false;
      data_.clear();
      type_.clear();
      ++dropped_events_;
    }
    line_.clear();
    return;
  }
  if (line_.empty()) {
    dispatch(sink);
    return;
  }
  if (line_.front() == ':') {  // a comment, e.g. a keep-alive
    line_.clear();
    return;
  }
  const std::string_view line = line_;
  const std::size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "event") {
    type_ = value;
  } else if (field == "data") {
    data_.append(value).push_back('\n');
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) id_buffer_ = value;
  } else if (field == "retry") {
    if (auto retry = parse_retry(value)) retry_ = retry;
  }
  // Any other field is ignored, as the standard says.
  line_.clear();
}

void SseParser::dispatch(const EventSink& sink) {
  // The standard sets the last event ID string from the buffer at every dispatch, even of an
  // event without data (a priming event), and only then.
  last_event_id_ = id_buffer_;
  if (data_.empty()) {  // e.g. an event of only `id:` or `retry:`: nothing to dispatch
    type_.clear();
    return;
  }
  data_.pop_back();  // the "\n" after the last data line
  SseEvent event{type_.empty() ? std::string("message") : std::move(type_), std::move(data_),
                 last_event_id_};
  data_.clear();
  type_.clear();
  sink(event);
}

}  // namespace mcp::detail
