// One case's clock (docs/verdicts.md, "Timeouts"). Until the client's first line, byte or
// request only the start-up budget runs (`startup_ms`: a slow start is the machine's); from
// that first contact, the case deadline and every window of the step waiting then. It also
// samples how late this process's timers fire, for the timing checks.
#pragma once

#include <optional>

#include "engine/channel.hpp"
#include "engine/transcript.hpp"
#include "timer_lateness.hpp"

namespace mcpping {

double elapsed_ms(Clock::time_point from, Clock::time_point to);
Clock::duration from_ms(double ms);
double round3(double ms);  // to the microsecond

class CaseClock {
 public:
  // The budgets in ms; contact and an exceeded start-up budget are events of `transcript`.
  CaseClock(double startup_ms, double case_deadline_ms, Transcript& transcript);

  // The start of the script: the start-up budget runs from `now`.
  void start(Clock::time_point now);
  // The client's first line, byte or request, at `at`: the case deadline runs from it.
  void contact(Clock::time_point at);
  // The start-up budget passed without contact: recorded once.
  void exceed_startup();

  const std::optional<Clock::time_point>& first_contact() const { return first_contact_; }
  Clock::time_point startup_deadline() const { return startup_deadline_; }
  // Before contact, the latest the script can end: the mock servers' watchdogs count to it.
  Clock::time_point case_deadline() const { return case_deadline_; }
  bool startup_exceeded() const { return startup_exceeded_; }

  // How late this process's timers fired between `from` and `to`, when later than
  // kOverloadedTimersMs: a timing check over that window is recorded NotJudged.
  std::optional<double> overloaded_between(Clock::time_point from, Clock::time_point to) const;

 private:
  const double startup_ms_;
  const double case_deadline_ms_;
  Transcript& transcript_;
  Clock::time_point startup_deadline_;
  Clock::time_point case_deadline_;
  std::optional<Clock::time_point> first_contact_;
  bool startup_exceeded_ = false;
  TimerLateness timers_;
};

}  // namespace mcpping
