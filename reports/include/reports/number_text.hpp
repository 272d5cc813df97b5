// How the reports write figures: milliseconds with two decimals, rates as whole numbers.
#pragma once

#include <cstdio>
#include <string>

#include "core/latency.hpp"

namespace mcpping::number_text {

// `value` with `decimals` digits after the point.
inline std::string fixed(double value, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

inline std::string ms(double value) { return fixed(value, 2); }

inline std::string per_second(double value) { return fixed(value, 0); }

// "p50 0.21 ms, p95 0.40 ms, max 1.02 ms"
inline std::string latency_text(const LatencySummary& figures) {
  return "p50 " + ms(figures.p50) + " ms, p95 " + ms(figures.p95) + " ms, max " + ms(figures.max) +
         " ms";
}

// "1000/1000": pongs of pings, so a burst that lost pongs says so.
inline std::string pongs_of_pings(const BurstFigures& burst) {
  return std::to_string(burst.pongs) + "/" + std::to_string(burst.pings);
}

// "1000/1000 pongs, the last 180.52 ms after the first ping, 5540 pongs/s"
inline std::string burst_text(const BurstFigures& burst) {
  return pongs_of_pings(burst) + " pongs, the last " + ms(burst.time_to_last_pong_ms) +
         " ms after the first ping, " + per_second(burst.pongs_per_second) + " pongs/s";
}

}  // namespace mcpping::number_text
