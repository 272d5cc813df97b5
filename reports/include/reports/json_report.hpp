// verdict.json (one case) in each case's evidence folder.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results.hpp"

namespace mcpping {

nlohmann::json to_json(const CaseResult& result);

// results.json: the whole run, per case and per check (docs/reports.md).
nlohmann::json to_json(const RunResult& run);
void write_results_json(const RunResult& run, const std::filesystem::path& file);

// A results.json that cannot be read back: missing, not ours, or malformed.
class ResultsFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads results.json back (for `baseline --from` and merging). Throws ResultsFileError
// naming the file and what is wrong.
RunResult read_results_json(const std::filesystem::path& file);

// Whether a check's pongs answered several pings at once. Reports written before burst
// figures existed have none; there a check with several latencies judged several pings.
bool is_burst(const CheckResult& check);
// Latency percentiles (nearest rank, core/latency.hpp) over the pongs of checks that are not
// bursts: what one ping at a time costs.
LatencySummary single_pong_figures(const CaseResult& result);
// The same over a run; of one transport's cases when `transport` is not empty.
LatencySummary single_pong_figures(const RunResult& run, const std::string& transport = {});

// A check with burst figures, and its case.
struct Burst {
  const CaseResult* result = nullptr;
  const CheckResult* check = nullptr;
};
// Every check with burst figures, in case order; of one transport's cases when `transport`
// is not empty.
std::vector<Burst> bursts_of(const RunResult& run, const std::string& transport = {});

std::string_view to_string(CaseResult::Expectation expectation);

}  // namespace mcpping
