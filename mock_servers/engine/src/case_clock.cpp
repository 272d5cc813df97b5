#include "case_clock.hpp"

#include <cmath>

#include "core/text.hpp"
#include "core/timing.hpp"

namespace mcpping {

double elapsed_ms(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

Clock::duration from_ms(double ms) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

double round3(double ms) { return std::round(ms * 1000.0) / 1000.0; }

CaseClock::CaseClock(double startup_ms, double case_deadline_ms, Transcript& transcript)
    : startup_ms_(startup_ms), case_deadline_ms_(case_deadline_ms), transcript_(transcript) {}

void CaseClock::start(Clock::time_point now) {
  startup_deadline_ = now + from_ms(startup_ms_);
  case_deadline_ = startup_deadline_ + from_ms(case_deadline_ms_);
}

void CaseClock::contact(Clock::time_point at) {
  if (first_contact_) return;
  first_contact_ = at;
  case_deadline_ = at + from_ms(case_deadline_ms_);
  const double since_start = std::max(0.0, transcript_.ms(at));
  transcript_.event("first contact from the client, " + format_ms(since_start) +
                        " ms after the server started: the case deadline runs from here",
                    {{"first_contact", round3(since_start)}});
}

void CaseClock::exceed_startup() {
  if (std::exchange(startup_exceeded_, true)) return;
  transcript_.event("the client did not start within " + format_ms(startup_ms_ / 1000.0) +
                        " s: no line, byte or request reached the server (start-up budget "
                        "startup_ms)",
                    {{"startup_exceeded", startup_ms_}});
}

std::optional<double> CaseClock::overloaded_between(Clock::time_point from,
                                                    Clock::time_point to) const {
  const double late = timers_.worst_ms(from, to);
  if (late <= kOverloadedTimersMs) return std::nullopt;
  return round3(late);
}

}  // namespace mcpping
