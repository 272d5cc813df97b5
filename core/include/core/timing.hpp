// The timing constants the mock servers and the runner both rely on, in one place: how long
// each side waits for the other past the case deadline (docs/verdicts.md, "Timeouts").
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>

namespace mcpping {

// How long a mock server may overstay the case deadline (a write blocked on a client that
// stopped reading, a handler stuck on a client) before its watchdog ends the process.
inline constexpr std::chrono::seconds kStdioWatchdogGrace{2};
inline constexpr std::chrono::seconds kHttpWatchdogGrace{3};
// The longest of the two: what a runner waiting for a mock server allows past the deadline.
inline constexpr std::chrono::milliseconds kMockWatchdog =
    kHttpWatchdogGrace > kStdioWatchdogGrace ? kHttpWatchdogGrace : kStdioWatchdogGrace;

// How long the driver may run past the mock server's case deadline (to finish its close
// step) before it counts as hung, and how long a stopped process gets before it is killed;
// scaled by --timeout-multiplier.
inline constexpr double kDriverGraceMs = 2000;
inline std::chrono::milliseconds driver_grace(double timeout_multiplier) {
  return std::chrono::milliseconds(
      static_cast<std::int64_t>(std::ceil(kDriverGraceMs * timeout_multiplier)));
}

// A mock server whose own timers woke up later than this during a timing window (a pong cap, a
// burst cap) ran on an overloaded machine: on a quiet one they are under 3 ms late, beside a
// busy loop on every core under 100 ms. A pong late in such a window is not judged.
inline constexpr double kOverloadedTimersMs = 50;

}  // namespace mcpping
