// Splits an SSE byte stream into events, for the broken client's HTTP transports.
#pragma once

#include <string>

#include "faults.hpp"

namespace broken {

// Feeds bytes as they arrive; calls on_event(type, data) per complete event: the type from
// `event:` ("message" when absent), the data lines joined with '\n'. With the
// needs-event-message fault, an event without an explicit `event:` line is dropped.
class SseEvents {
 public:
  template <typename OnEvent>
  void feed(const char* bytes, std::size_t size, OnEvent&& on_event) {
    buffer_.append(bytes, size);
    for (std::size_t nl; (nl = buffer_.find('\n')) != std::string::npos;) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) {
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
  bool has_data_ = false;
};

}  // namespace broken
