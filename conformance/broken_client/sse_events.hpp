// Splits an SSE byte stream into events, for the broken client's HTTP transports.
#pragma once

#include <algorithm>
#include <optional>
#include <string>

#include "faults.hpp"

namespace broken {

// Feeds bytes as they arrive; calls on_event(type, data) per complete event: the type from
// `event:` ("message" when absent), the data lines joined with '\n'. With the
// needs-event-message fault, an event without an explicit `event:` line is dropped. The last
// event id and `retry:` are kept for every event, one without data (a priming event)
// included, as an EventSource keeps them.
class SseEvents {
 public:
  const std::string& last_event_id() const { return last_event_id_; }
  const std::optional<long>& retry_ms() const { return retry_ms_; }

  template <typename OnEvent>
  void feed(const char* bytes, std::size_t size, OnEvent&& on_event) {
    buffer_.append(bytes, size);
    // One leading byte order mark is ignored (WHATWG), once the first bytes tell.
    if (!started_) {
      const std::string bom = "\xEF\xBB\xBF";
      const auto n = std::min(buffer_.size(), bom.size());
      if (buffer_.compare(0, n, bom, 0, n) != 0) {
        started_ = true;
      } else if (n == bom.size()) {
        buffer_.erase(0, n);
        started_ = true;
      }
    }
    if (!started_) return;
    // Lines end with CRLF, LF or CR: a CR ends its line at once, and a LF right after it
    // (maybe in the next bytes) belongs to it.
    for (std::size_t end; (end = buffer_.find_first_of("\r\n")) != std::string::npos;) {
      if (after_cr_ && end == 0 && buffer_[0] == '\n') {
        buffer_.erase(0, 1);
        after_cr_ = false;
        continue;
      }
      after_cr_ = buffer_[end] == '\r';
      std::string line = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      if (line.empty()) {
        last_event_id_ = id_buffer_;
        const bool unnamed = event_.empty();
        if (has_data_ && !data_.empty() && !(unnamed && has("needs-event-message")))
          on_event(unnamed ? std::string("message") : event_, data_);
        data_.clear();
        event_.clear();
        has_data_ = false;
      } else if (line.rfind("event:", 0) == 0) {
        event_ = field_value(line, 6);
      } else if (line.rfind("data:", 0) == 0) {
        data_ += (has_data_ ? "\n" : "") + field_value(line, 5);
        has_data_ = true;
      } else if (line.rfind("id:", 0) == 0) {
        id_buffer_ = field_value(line, 3);
      } else if (line.rfind("retry:", 0) == 0) {
        const auto value = field_value(line, 6);
        if (!value.empty() && value.find_first_not_of("0123456789") == std::string::npos &&
            value.size() < 10)
          retry_ms_ = std::stol(value);
      }
    }
  }

 private:
  // A field's value: after the colon, without one leading space.
  static std::string field_value(const std::string& line, std::size_t colon_end) {
    return line.substr(line.size() > colon_end && line[colon_end] == ' ' ? colon_end + 1
                                                                         : colon_end);
  }

  std::string buffer_, data_, event_;
  bool started_ = false;   // the leading byte order mark, if any, is behind
  bool after_cr_ = false;  // the last line ended with a CR: a LF next is part of its end
  bool has_data_ = false;
  std::string id_buffer_, last_event_id_;
  std::optional<long> retry_ms_;
};

}  // namespace broken
