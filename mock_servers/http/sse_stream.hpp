// One open SSE response (a POST's stream, the GET listening stream or the legacy stream):
// the interpreter queues chunks, an httplib worker writes them from the content provider.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <httplib.h>

#include "engine/channel.hpp"

namespace mcpping {

class SseStream {
 public:
  explicit SseStream(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }

  // Queues chunks (each one sink write); with `finish`, the stream ends after them.
  // Returns the sequence number of each chunk (1-based, increasing).
  std::vector<std::uint64_t> push(std::vector<std::string> chunks, bool finish);
  // Waits until chunk `seq` went out: when its write started, or nullopt when the stream
  // broke, was stopped or `deadline` passed first.
  std::optional<Clock::time_point> wait_written(std::uint64_t seq, Clock::time_point deadline);

  // The httplib content provider. Blocks at most `kWake` per call (httplib 0.11 calls it
  // in a loop and only checks for shutdown between calls), checks the client is still
  // there, writes what is queued, ends the stream when finished.
  bool provide(httplib::DataSink& sink);

  // The connection's socket (-1: unknown). An idle provider checks it for a client that
  // closed the stream: a write would only notice once data is due.
  void watch_peer(int fd);

  // Ends the stream at the provider's next wake (server shutdown, session deleted).
  void stop();
  bool ended() const;  // finished, broken or stopped

 private:
  static constexpr auto kWake = std::chrono::milliseconds(50);

  const std::string name_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::pair<std::uint64_t, std::string>> queue_;
  std::map<std::uint64_t, Clock::time_point> written_at_;
  std::uint64_t pushed_ = 0;
  std::uint64_t written_ = 0;
  bool finish_ = false;
  bool broken_ = false;
  bool stopped_ = false;
  bool done_ = false;
  int peer_fd_ = -1;
};

}  // namespace mcpping
