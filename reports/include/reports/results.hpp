// The results model: what one run found. Every report renders from this.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/spec_reference.hpp"
#include "core/verdict.hpp"

namespace mcpping {

// Several pings written at once and judged by one check (`ping/burst`). Their pongs queue
// behind each other, so they are reported as a burst, not as single-pong latencies.
struct BurstFigures {
  std::size_t pings = 0;            // requests written
  std::size_t pongs = 0;            // valid pongs among the answers
  double time_to_last_pong_ms = 0;  // the first ping written to the last pong received
  double pongs_per_second = 0;      // pongs over that time
};

struct CheckResult {
  std::string id;  // full id: "<case id>:<short id>"
  std::string short_id;
  Level level = Level::Must;
  Outcome outcome = Outcome::Met;   // what was observed
  Verdict verdict = Verdict::Pass;  // what the judge made of level and outcome
  // Not the case's own subject: recorded by a mock server on its own (a transport rule, an
  // invalid line) or by the runner for the driver process.
  bool collateral = false;
  std::vector<SpecReference> spec;
  std::string expected;
  std::string actual;
  std::vector<double> latency_ms;     // pongs only
  std::optional<BurstFigures> burst;  // set when latency_ms are a burst's
  std::optional<double> at_ms;        // transcript time of the outcome, when known
};

struct CaseResult {
  std::string case_id;  // "ping/colliding-id"
  std::string transport;
  std::string title;
  std::string description;
  std::string catches;
  Verdict verdict = Verdict::Pass;
  std::string reason;  // UNSUPPORTED or ERROR: why
  // Why an UNSUPPORTED case does not apply.
  enum class Unsupported {
    kNo,
    kRevision,   // the run's revision is outside the case's
    kTransport,  // the case does not run on the transport
    kDriver,     // the driver exited 127
    kClient,     // the client lacks an optional feature the case needs (it MAY)
  };
  Unsupported unsupported = Unsupported::kNo;
  std::vector<CheckResult> checks;
  double duration_ms = 0;
  std::filesystem::path evidence_dir;
  // Transcript lines around the first failing check, for failure messages.
  std::vector<std::string> transcript_excerpt;

  // What a baseline says of this case (docs/baselines.md).
  enum class Expectation {
    kNone,
    kExpectedFailure,  // failed as the baseline says: reported, does not fail the run
    kFlaky,            // listed as flaky: reported, never gates
    kStale,            // listed, but passed: the entry is stale and fails the run
  };
  Expectation expectation = Expectation::kNone;
  std::string expectation_reason;  // the baseline entry's reason
};

// Whether a case fails the run: its verdict under the strictness, and what the baseline says.
bool case_fails_run(const CaseResult& result, bool strict);

// Whether the verdict alone counts as a failure under the strictness (FAIL, ERROR, and
// NON_STRICT when strict).
bool verdict_fails(Verdict verdict, bool strict);

struct RunInfo {
  std::string suite_version;
  std::string revision;
  bool strict = false;
  double timeout_multiplier = 1.0;
  std::vector<std::string> driver_argv;
  double pong_cap_ms = 0;
};

struct RunResult {
  RunInfo info;
  std::vector<CaseResult> cases;
  double duration_ms = 0;
  std::string started_at;  // ISO 8601, UTC
  // Baseline entries that name no case or check of the catalogue (typos, removed cases).
  std::vector<std::string> unknown_baseline_entries;
  std::string baseline_file;
};

// Counts by verdict, for closing lines and JUnit attributes.
struct VerdictCounts {
  std::size_t total = 0, pass = 0, non_strict = 0, fail = 0, informational = 0, unsupported = 0,
              error = 0;
  std::size_t expected_failures = 0, flaky = 0, stale = 0;
};
// Counts by verdict; expected failures, flaky failures and stale entries are counted apart
// from the verdict they carry (an expected FAIL is not in `fail`).
VerdictCounts count_verdicts(const std::vector<CaseResult>& cases);

// The checks that are not PASS: those of the case's own subject first, then collateral ones,
// the worst first within each.
std::vector<const CheckResult*> notable_checks(const CaseResult& result);

// A collateral check (the handshake, a transport rule) that failed in several cases: one
// defect outside those cases' subject, said once at the top of a report.
struct CollateralDefect {
  std::string check;  // short id, e.g. "handshake", "http:session-id"
  Level level = Level::Must;
  std::size_t cases = 0;
  std::string example;  // the Actual of its first failure
};
// Collateral checks that fail the run (under its strictness), most cases first.
std::vector<CollateralDefect> collateral_defects(const RunResult& run);

}  // namespace mcpping
