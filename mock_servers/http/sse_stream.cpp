#include "http/sse_stream.hpp"

#include "http/httplib_support.hpp"

namespace mcpping {

std::vector<std::uint64_t> SseStream::push(std::vector<std::string> chunks, bool finish) {
  std::vector<std::uint64_t> seqs;
  {
    const std::lock_guard lock(mutex_);
    for (auto& c : chunks) {
      queue_.emplace_back(++pushed_, std::move(c));
      seqs.push_back(pushed_);
    }
    if (finish) finish_ = true;
  }
  cv_.notify_all();
  return seqs;
}

std::optional<Clock::time_point> SseStream::wait_written(std::uint64_t seq,
                                                         Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  cv_.wait_until(lock, deadline, [&] { return written_ >= seq || broken_ || stopped_; });
  const auto it = written_at_.find(seq);
  if (written_ < seq || it == written_at_.end()) return std::nullopt;
  // Kept, not erased: the frames of a coalesced write share one chunk, so several waiters
  // ask for the same sequence number (a stream's chunks are few and short-lived).
  return it->second;
}

void SseStream::watch_peer(int fd) {
  const std::lock_guard lock(mutex_);
  peer_fd_ = fd;
}

bool SseStream::provide(httplib::DataSink& sink) {
  std::unique_lock lock(mutex_);
  cv_.wait_for(lock, kWake, [&] { return !queue_.empty() || finish_ || stopped_; });
  if (stopped_ || broken_) return false;
  if (queue_.empty() && !finish_) {
    if (sink.is_writable() && (peer_fd_ < 0 || !peer_closed(peer_fd_))) return true;
    broken_ = true;  // the client went away
    cv_.notify_all();
    return false;
  }
  while (!queue_.empty()) {
    auto [seq, chunk] = std::move(queue_.front());
    queue_.pop_front();
    // Stamped before the write: a fast client may answer before write() returns.
    written_at_[seq] = Clock::now();
    lock.unlock();
    const bool ok = sink.write(chunk.data(), chunk.size());
    lock.lock();
    if (!ok) {
      broken_ = true;
      written_at_.erase(seq);
      cv_.notify_all();
      return false;
    }
    written_ = seq;
    cv_.notify_all();
  }
  if (finish_) {
    done_ = true;
    lock.unlock();
    sink.done();
  }
  return true;
}

void SseStream::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  cv_.notify_all();
}

bool SseStream::ended() const {
  const std::lock_guard lock(mutex_);
  return done_ || broken_ || stopped_ || finish_;
}

}  // namespace mcpping
