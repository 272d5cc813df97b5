#include "engine/stderr_writer.hpp"

#include <algorithm>

namespace mcpping {

void StderrWriter::stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    cv_.notify_all();
    thread_.join();
  }
}

void StderrWriter::enqueue(std::string bytes) {
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(std::move(bytes));
  }
  if (!thread_.joinable()) {
    thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
  }
  cv_.notify_all();
}

void StderrWriter::loop(std::stop_token stop) {
  for (;;) {
    std::string bytes;
    {
      std::unique_lock lock(mutex_);
      if (!cv_.wait(lock, stop, [&] { return !queue_.empty(); })) return;
      bytes = std::move(queue_.front());
      queue_.pop_front();
    }
    const auto written = channel_.write_stderr(bytes, stop);
    transcript_.stderr_written(written, bytes.size());
  }
}

std::string stderr_filler(std::size_t bytes) {
  static const std::string line =
      "mcp-ping-conformance stderr filler: the client must keep draining stderr.......\n";
  std::string out;
  out.reserve(bytes);
  while (out.size() < bytes) out.append(line, 0, std::min(line.size(), bytes - out.size()));
  if (!out.empty()) out.back() = '\n';
  return out;
}

}  // namespace mcpping
