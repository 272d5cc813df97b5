#include "http/growing_thread_pool.hpp"

#include <algorithm>

namespace mcpping {

GrowingThreadPool::GrowingThreadPool(std::size_t max_threads)
    : max_threads_(std::max<std::size_t>(1, max_threads)) {}

GrowingThreadPool::~GrowingThreadPool() { shutdown(); }

void GrowingThreadPool::enqueue(std::function<void()> job) {
  const std::lock_guard lock(mutex_);
  if (shutting_down_) return;
  jobs_.push_back(std::move(job));
  // An idle thread is claimed for it at once, not when it wakes: a second job queued before
  // then must not count on the same thread.
  if (idle_ > claimed_) {
    ++claimed_;
    wake_.notify_one();
  } else if (threads_.size() < max_threads_) {
    threads_.emplace_back([this] { work(); });
  }
  // Otherwise every thread is busy: the first to finish its job takes this one.
}

void GrowingThreadPool::shutdown() {
  std::vector<std::thread> threads;
  {
    const std::lock_guard lock(mutex_);
    shutting_down_ = true;
    threads.swap(threads_);
  }
  wake_.notify_all();
  for (auto& thread : threads) thread.join();
}

std::size_t GrowingThreadPool::threads() const {
  const std::lock_guard lock(mutex_);
  return threads_.size();
}

bool GrowingThreadPool::wait_until_idle(std::size_t count, std::chrono::milliseconds bound) const {
  std::unique_lock lock(mutex_);
  return idle_changed_.wait_for(lock, bound, [&] { return idle_ - claimed_ >= count; });
}

void GrowingThreadPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      if (jobs_.empty() && !shutting_down_) {
        ++idle_;
        idle_changed_.notify_all();
        wake_.wait(lock, [this] { return claimed_ > 0 || shutting_down_; });
        --idle_;
        if (claimed_ > 0) --claimed_;
      }
      // A busy thread may have taken the job this one was claimed for: wait again.
      if (jobs_.empty()) {
        if (shutting_down_) return;
        continue;
      }
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace mcpping
