#include "sse_stream.hpp"

#include "httplib_support.hpp"

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

std::uint64_t SseStream::attach(int peer_fd) {
  const std::lock_guard lock(mutex_);
  peer_fd_ = peer_fd;
  detached_.reset();
  resuming_ = false;
  return ++connection_;
}

bool SseStream::writable_locked() const {
  return !queue_.empty() && (!close_after_ || queue_.front().first <= *close_after_);
}

bool SseStream::closing_due_locked() const {
  return close_after_ && (queue_.empty() || queue_.front().first > *close_after_);
}

bool SseStream::provide(httplib::DataSink& sink, std::uint64_t connection) {
  std::unique_lock lock(mutex_);
  if (connection != connection_ || detached_) return false;  // a connection that has ended
  cv_.wait_for(lock, kWake, [&] {
    return writable_locked() || closing_due_locked() || !replay_.empty() || finish_ || stopped_;
  });
  if (stopped_ || broken_) return false;
  const auto write = [&](const std::string& bytes) {
    lock.unlock();
    const bool ok = sink.write(bytes.data(), bytes.size());
    lock.lock();
    if (!ok) {
      broken_ = true;
      cv_.notify_all();
    }
    return ok;
  };
  bool wrote = false;
  if (!replay_.empty()) {
    const auto replay = std::exchange(replay_, std::string());
    if (!write(replay)) return false;
    wrote = true;
  }
  while (writable_locked()) {
    auto [seq, chunk] = std::move(queue_.front());
    queue_.pop_front();
    // Stamped before the write: a fast client may answer before write() returns.
    written_at_[seq] = Clock::now();
    if (!write(chunk)) {
      written_at_.erase(seq);
      return false;
    }
    events_.add(chunk);
    written_ = seq;
    wrote = true;
    cv_.notify_all();
  }
  if (closing_due_locked()) {
    // The connection ends here, the stream does not: what comes next waits for a resume.
    close_after_.reset();
    detached_ = Clock::now();
    last_detach_ = *detached_;
    ++detaches_;
    cv_.notify_all();
    lock.unlock();
    sink.done();
    return true;
  }
  if (queue_.empty() && finish_) {
    done_ = true;
    lock.unlock();
    sink.done();
    return true;
  }
  if (wrote || (sink.is_writable() && (peer_fd_ < 0 || !peer_closed(peer_fd_)))) return true;
  broken_ = true;  // the client went away
  cv_.notify_all();
  return false;
}

bool SseStream::disconnect() {
  {
    const std::lock_guard lock(mutex_);
    if (done_ || broken_ || stopped_ || finish_ || detached_ || close_after_) return false;
    close_after_ = pushed_;
    awaited_detaches_ = detaches_ + 1;
  }
  cv_.notify_all();
  return true;
}

std::optional<Resumption> SseStream::wait_disconnected(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  // Counted, not read off detached_: a client that reconnects at once may have resumed the
  // stream (attach() clears detached_) or replaced it (abandon() stops it) by now.
  const auto done = [&] { return detaches_ >= awaited_detaches_; };
  cv_.wait_until(lock, deadline, [&] { return done() || broken_ || stopped_; });
  if (!done()) return std::nullopt;
  return Resumption{events_.last_event_id(), events_.retry_ms(), last_detach_, 0};
}

bool SseStream::disconnected() const {
  const std::lock_guard lock(mutex_);
  return detached_ && !resuming_ && !broken_ && !stopped_;
}

std::optional<Resumption> SseStream::resume(const std::string& last_event_id) {
  const std::lock_guard lock(mutex_);
  if (!detached_ || resuming_ || broken_ || stopped_) return std::nullopt;
  auto after = events_.after(last_event_id);
  if (!after) return std::nullopt;
  replay_ = std::move(*after);
  resuming_ = true;
  return Resumption{events_.last_event_id(), events_.retry_ms(), *detached_, replay_.size()};
}

std::optional<Resumption> SseStream::abandon() {
  std::optional<Resumption> out;
  {
    const std::lock_guard lock(mutex_);
    if (!detached_ || resuming_ || broken_ || stopped_) return std::nullopt;
    stopped_ = true;
    out = Resumption{events_.last_event_id(), events_.retry_ms(), *detached_, 0};
  }
  cv_.notify_all();
  return out;
}

bool SseStream::wrote_event(const std::string& id) const {
  const std::lock_guard lock(mutex_);
  return events_.after(id).has_value();
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
