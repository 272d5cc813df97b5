// verdict.json (one case) in each case's evidence folder.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "reports/results.hpp"

namespace mcpping {

nlohmann::json to_json(const CheckResult& check);
nlohmann::json to_json(const CaseResult& result);

// Writes <evidence_dir>/verdict.json.
void write_case_verdict(const CaseResult& result);

// results.json: the whole run, per case and per check (docs/reports.md).
nlohmann::json to_json(const RunResult& run);
void write_results_json(const RunResult& run, const std::filesystem::path& file);

// Reads results.json back (for `baseline --from` and merging). Throws std::runtime_error
// naming the file and what is wrong.
RunResult read_results_json(const std::filesystem::path& file);

// Latency percentiles (nearest rank, core/latency.hpp) and how many latencies they cover.
struct LatencyFigures {
  std::size_t count = 0;
  double p50 = 0, p95 = 0, max = 0;
};
LatencyFigures latency_figures(const std::vector<double>& latencies);
// Over every pong latency a case recorded.
LatencyFigures latency_figures(const CaseResult& result);
// Over every pong latency of a run; of one transport's cases when `transport` is not empty.
LatencyFigures latency_figures(const RunResult& run, const std::string& transport = {});

std::string_view to_string(CaseResult::Expectation expectation);

}  // namespace mcpping
