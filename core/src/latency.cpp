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
  return {values.size(), rank(0.50), rank(0.95), values.back()};
}

nlohmann::json to_json(const BurstFigures& burst) {
  return {{"pings", burst.pings},
          {"pongs", burst.pongs},
          {"time_to_last_pong_ms", burst.time_to_last_pong_ms},
          {"pongs_per_second", burst.pongs_per_second}};
}

std::optional<BurstFigures> burst_from_json(const nlohmann::json& value) {
  if (!value.is_object()) return std::nullopt;
  const auto number = [&](const char* key) -> std::optional<double> {
    const auto it = value.find(key);
    if (it == value.end() || !it->is_number() || it->get<double>() < 0) return std::nullopt;
    return it->get<double>();
  };
  const auto pings = number("pings"), pongs = number("pongs"),
             time = number("time_to_last_pong_ms"), rate = number("pongs_per_second");
  if (!pings || !pongs || !time || !rate) return std::nullopt;
  return BurstFigures{static_cast<std::size_t>(*pings), static_cast<std::size_t>(*pongs), *time,
                      *rate};
}

}  // namespace mcpping
