#include "core/latency.hpp"

#include <algorithm>
#include <cmath>

namespace mcpping {

LatencySummary summarize_latencies(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  auto rank = [&](double p) {
    const auto n = static_cast<double>(values.size());
    const auto index = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n))) - 1;
    return values[std::min(index, values.size() - 1)];
  };
  return {rank(0.50), rank(0.95), values.back()};
}

}  // namespace mcpping
