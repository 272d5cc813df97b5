// How the reports write figures: milliseconds with two decimals, rates as whole numbers.
#pragma once

#include <cstdio>
#include <string>

namespace mcpping::number_text {

inline std::string ms(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

inline std::string per_second(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.0f", value);
  return buffer;
}

}  // namespace mcpping::number_text
