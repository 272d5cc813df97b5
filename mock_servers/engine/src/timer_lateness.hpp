// How late this process's timers fire. A thread sleeps in short steps and keeps the latest
// wake-up of every 100 ms slot, for the last two minutes. Wake-ups tens of milliseconds late
// mean the machine is overloaded: the client, the server and their clocks all ran behind, and a
// timing check recorded then says more about the machine than about the client
// (docs/verdicts.md, "Timeouts").
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "engine/channel.hpp"

namespace mcpping {

class TimerLateness {
 public:
  TimerLateness();   // starts sampling
  ~TimerLateness();  // stops and joins
  TimerLateness(const TimerLateness&) = delete;
  TimerLateness& operator=(const TimerLateness&) = delete;

  // The latest wake-up between `from` and `to`, in ms late (0 when none was late).
  double worst_ms(Clock::time_point from, Clock::time_point to) const;

  // For tests: records a wake-up `late_ms` late at `at`, as the sampler does.
  void note(Clock::time_point at, double late_ms);

 private:
  void sample();

  mutable std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  std::deque<std::pair<Clock::time_point, double>> slots_;  // slot start, worst in it
  std::thread sampler_;
};

}  // namespace mcpping
