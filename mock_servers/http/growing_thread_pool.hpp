// cpp-httplib's task queue, with threads started as work needs them.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace mcpping {

// httplib's ThreadPool starts all its threads at once: 64 of them cost each HTTP case about
// 30 ms of CPU (a third of a short case's), while a case opens a handful of connections. This
// pool starts a thread only when a job finds none idle, up to `max_threads`, and keeps them.
// Beyond that, jobs wait in order for a thread to finish one (httplib's behaviour when every
// worker is busy). A connection holds its thread as long as it is open (an SSE stream: the
// whole case), so a job must never wait for an idle thread that is not there.
class GrowingThreadPool : public httplib::TaskQueue {
 public:
  explicit GrowingThreadPool(std::size_t max_threads);
  ~GrowingThreadPool() override;
  GrowingThreadPool(const GrowingThreadPool&) = delete;
  GrowingThreadPool& operator=(const GrowingThreadPool&) = delete;

  void enqueue(std::function<void()> job) override;
  // Runs the jobs already queued, then joins every thread. Jobs enqueued later are dropped.
  void shutdown() override;

  // The threads started so far (none once shut down).
  std::size_t threads() const;
  // Waits, at most `bound`, until `count` threads wait for a job and none is claimed for one
  // queued; false if they did not.
  bool wait_until_idle(std::size_t count, std::chrono::milliseconds bound) const;

 private:
  void work();

  const std::size_t max_threads_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  mutable std::condition_variable idle_changed_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;     // threads waiting for a job
  std::size_t claimed_ = 0;  // of those, the ones already woken for a queued job
  bool shutting_down_ = false;
};

}  // namespace mcpping
