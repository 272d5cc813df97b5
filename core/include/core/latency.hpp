// Latency percentiles, as every report and check states them.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace mcpping {

struct LatencySummary {
  std::size_t count = 0;  // how many latencies they cover
  double p50 = 0;
  double p95 = 0;
  double max = 0;
};

// Nearest-rank percentiles. All zero for no values.
LatencySummary summarize_latencies(std::vector<double> values);

// Several pings written at once and judged by one check (`ping/burst`). Their pongs queue
// behind each other, so they are reported as a burst, not as single-pong latencies. The mock
// server writes it in a check record, the reports read it back: one type for both.
struct BurstFigures {
  std::size_t pings = 0;            // requests written
  std::size_t pongs = 0;            // valid pongs among the answers
  double time_to_last_pong_ms = 0;  // the first ping written to the last pong received
  double pongs_per_second = 0;      // pongs over that time
};

nlohmann::json to_json(const BurstFigures& burst);
// nullopt when `value` is not an object with the four non-negative numbers.
std::optional<BurstFigures> burst_from_json(const nlohmann::json& value);

}  // namespace mcpping
