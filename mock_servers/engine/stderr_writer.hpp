// Writes to the server's stderr on its own thread, in order, so a client that never drains
// stderr cannot block the script.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include "engine/channel.hpp"
#include "engine/transcript.hpp"

namespace mcpping {

class StderrWriter {
 public:
  StderrWriter(Channel& channel, Transcript& transcript)
      : channel_(channel), transcript_(transcript) {}
  ~StderrWriter() { stop(); }
  StderrWriter(const StderrWriter&) = delete;
  StderrWriter& operator=(const StderrWriter&) = delete;

  // Stops at once, even in the middle of a write the client does not drain.
  void stop();
  // Queues bytes; the thread starts with the first.
  void enqueue(std::string bytes);

 private:
  void loop(std::stop_token stop);

  Channel& channel_;
  Transcript& transcript_;
  std::mutex mutex_;
  std::condition_variable_any cv_;
  std::deque<std::string> queue_;
  std::jthread thread_;
};

// `bytes` of filler lines, ending with a newline.
std::string stderr_filler(std::size_t bytes);

}  // namespace mcpping
