// Latency percentiles, as every report and check states them.
#pragma once

#include <vector>

namespace mcpping {

struct LatencySummary {
  double p50 = 0;
  double p95 = 0;
  double max = 0;
};

// Nearest-rank percentiles. All zero for no values.
LatencySummary summarize_latencies(std::vector<double> values);

}  // namespace mcpping
