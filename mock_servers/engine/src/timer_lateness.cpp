#include "timer_lateness.hpp"

#include <algorithm>

namespace mcpping {

namespace {

constexpr auto kStep = std::chrono::milliseconds(10);
constexpr auto kSlot = std::chrono::milliseconds(100);
constexpr std::size_t kSlotsKept = 1200;  // two minutes: longer than any window

}  // namespace

TimerLateness::TimerLateness() : sampler_([this] { sample(); }) {}

TimerLateness::~TimerLateness() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  sampler_.join();
}

void TimerLateness::sample() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto due = Clock::now() + kStep;
    if (stop_requested_.wait_until(lock, due, [&] { return stopping_; })) return;
    const auto woke = Clock::now();
    lock.unlock();
    note(woke, std::chrono::duration<double, std::milli>(woke - due).count());
    lock.lock();
  }
}

void TimerLateness::note(Clock::time_point at, double late_ms) {
  const std::lock_guard lock(mutex_);
  if (slots_.empty() || at - slots_.back().first >= kSlot) {
    slots_.emplace_back(at, 0.0);
    if (slots_.size() > kSlotsKept) slots_.pop_front();
  }
  slots_.back().second = std::max(slots_.back().second, late_ms);
}

double TimerLateness::worst_ms(Clock::time_point from, Clock::time_point to) const {
  const std::lock_guard lock(mutex_);
  double worst = 0;
  for (const auto& [start, late] : slots_) {
    if (start + kSlot > from && start <= to) worst = std::max(worst, late);
  }
  return worst;
}

}  // namespace mcpping
