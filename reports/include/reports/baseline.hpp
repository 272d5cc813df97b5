// Baselines: a client's known failures, kept in the client's repository (docs/baselines.md).
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/results.hpp"

namespace mcpping {

// A baseline file the suite cannot use. what() reads "<file>:<line>: <reason>".
class BaselineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Exactly one of case_id, check_id and finding is set.
struct BaselineEntry {
  std::string case_id;                   // "ping/idle"
  std::string check_id;                  // "ping/idle:pong-while-idle"
  std::string finding;                   // a collateral check: "http:session-id"
  std::optional<std::string> transport;  // only on this transport
  std::string reason;
  int line = 0;                  // in the file, for messages
  std::string describe() const;  // "ping/idle:pong-while-idle (stdio)"
};

struct Baseline {
  std::filesystem::path file;
  std::vector<BaselineEntry> expected_failures;
  std::vector<BaselineEntry> flaky;
};

Baseline load_baseline(const std::filesystem::path& file);
// The same for a baseline's text already read; `file` names it in errors.
Baseline parse_baseline(const std::string& text, const std::filesystem::path& file);

// Everything the catalogue has: case ids and full check ids, to spot entries naming nothing.
struct KnownIds {
  std::set<std::string> cases;
  std::set<std::string> checks;
};

// Marks each case and finding of the run with what the baseline says of it, and records the
// entries that name no known case or check. Cases that did not run are not judged; a
// `finding` entry on a transport that ran, whose finding did not occur, is stale (a Finding
// with verdict PASS is added to say so).
void apply_baseline(const Baseline& baseline, const KnownIds& known, RunResult& run);

// A baseline that expects exactly the failures of `run`, each with the failing check's
// headline as its reason, for a person to refine.
std::string baseline_from_run(const RunResult& run);

}  // namespace mcpping
