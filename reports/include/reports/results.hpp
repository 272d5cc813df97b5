// The results model: what one run found. Every report renders from this.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/latency.hpp"
#include "core/spec_reference.hpp"
#include "core/verdict.hpp"

namespace mcpping {

struct CheckResult {
  std::string id;  // full id: "<case id>:<short id>"
  std::string short_id;
  Level level = Level::Must;
  Outcome outcome = Outcome::Met;   // what was observed
  Verdict verdict = Verdict::Pass;  // what the judge made of level and outcome
  // Subject: the case's verdict. Fate: the client's process in this case. Collateral: a
  // finding of the run (Finding), shown on the case's page as a note.
  CheckKind kind = CheckKind::Subject;
  std::vector<SpecReference> spec;
  std::string expected;
  std::string actual;
  std::vector<double> latency_ms;     // pongs only
  std::optional<BurstFigures> burst;  // set when latency_ms are a burst's
  std::optional<double> at_ms;        // transcript time of the outcome, when known
};

// A check the case declares that was not judged, and why: its premise never happened (no
// pong POST whose headers could be read, a fault that never fired), its sentences do not
// apply at the session's revision, the script stopped behind something the client MAY skip,
// or no driver ran (`serve`). Neither PASS nor FAIL: listed apart, no part of the verdict.
struct NotJudgedCheck {
  std::string id;  // full id: "<case id>:<short id>"
  std::string short_id;
  Level level = Level::Must;
  std::string expected;
  std::string why;
  enum class Cause { kPremise, kRevision, kSkip, kNoDriver, kOverload };
  Cause cause = Cause::kPremise;
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
  std::vector<NotJudgedCheck> not_judged;
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
  // How many cases ran at once, and why, when the run chose it from the client's start-up.
  std::string jobs_choice;
  // The schema folder every client message was validated against (--schemas); empty when
  // schema validation was off.
  std::string schemas;
};

// Whether the run validated client messages against the specification's schemas, in one
// sentence for the console and every report: "schema validation on: <dir>" or off, and why.
std::string schema_validation_line(const RunInfo& info);

// What a baseline says of a case or a finding (docs/baselines.md).
using Expectation = CaseResult::Expectation;

// A collateral check (the handshake, a transport or HTTP rule) over one transport of a run:
// one defect of the client in general, named once with the cases it occurred in, judged by
// its own level. It never changes a case's verdict.
struct Finding {
  std::string check;  // short id: "http:session-id"
  std::string transport;
  Level level = Level::Must;
  Verdict verdict = Verdict::Pass;  // the worst of its occurrences
  std::vector<SpecReference> spec;
  std::string expected;
  std::vector<std::string> cases;  // the case ids it occurred in, in run order
  std::string example;             // the Actual of its first worst occurrence
  std::string example_case;        // ... and that occurrence's case
  Expectation expectation = Expectation::kNone;
  std::string expectation_reason;
};

struct RunResult {
  RunInfo info;
  std::vector<CaseResult> cases;
  std::vector<Finding> findings;  // collect_findings(cases), then the baseline
  double duration_ms = 0;
  std::string started_at;  // ISO 8601, UTC
  // Baseline entries that name no case or check of the catalogue (typos, removed cases).
  std::vector<std::string> unknown_baseline_entries;
  std::string baseline_file;
};

// The transports of a run's cases, in the order they first appear.
std::vector<std::string> transports_of(const RunResult& run);

// The findings of `cases`: every collateral check that was not PASS, one per check id and
// transport, in the order they first occurred.
std::vector<Finding> collect_findings(const std::vector<CaseResult>& cases);
// The same, keeping what a baseline said in `marked` (findings as a run wrote them: a
// results.json read back, the shards of a merge): a mark goes to the finding of its check and
// transport, judged again by the finding's verdict over `cases` (flaky stays flaky); a stale
// entry whose finding did not occur stays as it was.
std::vector<Finding> collect_findings(const std::vector<CaseResult>& cases,
                                      const std::vector<Finding>& marked, bool strict);

// The run's fail policy, in one place (docs/verdicts.md): a case or finding fails the run by
// its verdict under the strictness unless a baseline expects it; a stale baseline entry
// fails it; an ERROR is the suite's, exit status 2 whatever the baseline says.
bool finding_fails_run(const Finding& finding, bool strict);
enum class RunStatus { kOk, kFailed, kError };
RunStatus run_status(const RunResult& run);
// The exit status a command reports for it: 0, 1, or 3 (the suite failed: 2 is a usage error).
int exit_code(RunStatus status);

struct VerdictCounts {
  std::size_t total = 0, pass = 0, non_strict = 0, fail = 0, informational = 0, unsupported = 0,
              error = 0;
  std::size_t expected_failures = 0, flaky = 0, stale = 0;
};
// Counts by verdict; expected failures, flaky failures and stale entries are counted apart
// from the verdict they carry (an expected FAIL is not in `fail`).
VerdictCounts count_verdicts(const std::vector<CaseResult>& cases);

// The checks that are not PASS: those of the case's own subject and fate first, then
// collateral ones, the worst first within each.
std::vector<const CheckResult*> notable_checks(const CaseResult& result);

// One cause behind several cases, named once at the top of a report: a finding that occurred
// in three or more cases, or the same subject check failing the same way in three or more
// cases of a transport ("pong: no response within 2000 ms: 40 cases").
struct RootCause {
  std::string check;  // short id
  std::string transport;
  Verdict verdict = Verdict::Fail;
  bool finding = false;            // a collateral finding, not a subject check
  std::vector<std::string> cases;  // case ids
  std::string evidence;            // the first occurrence's Actual
};
inline constexpr std::size_t kRootCauseMinCases = 3;
// Root causes whose verdict fails a strict run (NON_STRICT, FAIL, ERROR), most cases first.
std::vector<RootCause> root_causes(const RunResult& run);

}  // namespace mcpping
