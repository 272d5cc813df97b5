#include "reports/results.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace mcpping {

bool verdict_fails(Verdict verdict, bool strict) {
  return verdict == Verdict::Fail || verdict == Verdict::Error ||
         (strict && verdict == Verdict::NonStrict);
}

std::string schema_validation_line(const RunInfo& info) {
  if (info.schemas.empty())
    return "schema validation off: no --schemas DIR, so wire:schema-valid was not judged";
  return "schema validation on: every client message checked against " + info.schemas +
         "/<revision>/schema.json";
}

bool case_fails_run(const CaseResult& result, bool strict) {
  // The suite's own trouble (ERROR) is never expected.
  if (result.verdict == Verdict::Error || result.expectation == Expectation::kStale) return true;
  return result.expectation == Expectation::kNone && verdict_fails(result.verdict, strict);
}

VerdictCounts count_verdicts(const std::vector<CaseResult>& cases) {
  // Each verdict's count, in the order of the enumerators.
  constexpr std::size_t VerdictCounts::*kCountOf[] = {
      &VerdictCounts::pass,       &VerdictCounts::informational, &VerdictCounts::unsupported,
      &VerdictCounts::non_strict, &VerdictCounts::fail,          &VerdictCounts::error};
  VerdictCounts counts;
  for (const auto& result : cases) {
    ++counts.total;
    if (result.expectation == Expectation::kStale) ++counts.stale;
    if (result.verdict != Verdict::Error) {
      if (result.expectation == Expectation::kExpectedFailure) {
        ++counts.expected_failures;
        continue;
      }
      if (result.expectation == Expectation::kFlaky && result.verdict != Verdict::Pass) {
        ++counts.flaky;
        continue;
      }
    }
    ++(counts.*kCountOf[static_cast<std::size_t>(result.verdict)]);
  }
  return counts;
}

std::vector<const CheckResult*> notable_checks(const CaseResult& result) {
  std::vector<const CheckResult*> notable;
  for (const auto& check : result.checks) {
    if (check.verdict != Verdict::Pass) notable.push_back(&check);
  }
  std::stable_sort(notable.begin(), notable.end(), [](const CheckResult* a, const CheckResult* b) {
    const bool a_collateral = a->kind == CheckKind::Collateral;
    const bool b_collateral = b->kind == CheckKind::Collateral;
    if (a_collateral != b_collateral) return !a_collateral;
    return static_cast<int>(a->verdict) > static_cast<int>(b->verdict);
  });
  return notable;
}

std::vector<std::string> transports_of(const RunResult& run) {
  std::vector<std::string> transports;
  for (const auto& result : run.cases) {
    if (std::find(transports.begin(), transports.end(), result.transport) == transports.end()) {
      transports.push_back(result.transport);
    }
  }
  return transports;
}

std::vector<Finding> collect_findings(const std::vector<CaseResult>& cases) {
  std::vector<Finding> findings;
  for (const auto& result : cases) {
    for (const auto& check : result.checks) {
      if (check.kind != CheckKind::Collateral || check.verdict == Verdict::Pass) continue;
      auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) {
        return f.check == check.short_id && f.transport == result.transport;
      });
      if (it == findings.end()) {
        Finding f;
        f.check = check.short_id;
        f.transport = result.transport;
        f.level = check.level;
        f.verdict = check.verdict;
        f.spec = check.spec;
        f.expected = check.expected;
        f.example = check.actual;
        f.example_case = result.case_id;
        findings.push_back(std::move(f));
        it = findings.end() - 1;
      } else if (worst(it->verdict, check.verdict) != it->verdict) {
        it->verdict = check.verdict;
        it->example = check.actual;
        it->example_case = result.case_id;
      }
      if (it->cases.empty() || it->cases.back() != result.case_id)
        it->cases.push_back(result.case_id);
    }
  }
  return findings;
}

std::vector<Finding> collect_findings(const std::vector<CaseResult>& cases,
                                      const std::vector<Finding>& marked, bool strict) {
  auto findings = collect_findings(cases);
  for (const auto& mark : marked) {
    if (mark.expectation == Expectation::kNone) continue;
    const auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) {
      return f.check == mark.check && f.transport == mark.transport;
    });
    if (it == findings.end()) {
      if (mark.expectation == Expectation::kStale) findings.push_back(mark);
    } else if (it->expectation == Expectation::kNone && mark.verdict != Verdict::Pass) {
      // A mark of a finding that occurred (a stale one that did not occur has verdict PASS).
      it->expectation = mark.expectation == Expectation::kFlaky ? Expectation::kFlaky
                        : verdict_fails(it->verdict, strict)    ? Expectation::kExpectedFailure
                                                                : Expectation::kStale;
      it->expectation_reason = mark.expectation_reason;
    }
  }
  return findings;
}

bool finding_fails_run(const Finding& finding, bool strict) {
  return finding.expectation == Expectation::kStale ||
         (finding.expectation == Expectation::kNone && verdict_fails(finding.verdict, strict));
}

RunStatus run_status(const RunResult& run) {
  const bool error = std::any_of(run.cases.begin(), run.cases.end(),
                                 [](const CaseResult& c) { return c.verdict == Verdict::Error; });
  if (error) return RunStatus::kError;
  const bool strict = run.info.strict;
  const bool failed = std::any_of(run.cases.begin(), run.cases.end(),
                                  [&](const CaseResult& c) { return case_fails_run(c, strict); }) ||
                      std::any_of(run.findings.begin(), run.findings.end(),
                                  [&](const Finding& f) { return finding_fails_run(f, strict); });
  return failed ? RunStatus::kFailed : RunStatus::kOk;
}

int exit_code(RunStatus status) {
  constexpr int kCodes[] = {0, 1, 3};  // kOk, kFailed, kError
  return kCodes[static_cast<std::size_t>(status)];
}

namespace {

// How much of an Actual's shape two checks must share to count as one cause.
constexpr std::size_t kCauseShapeBytes = 60;

// What "the same way" means for a subject check across cases: its outcome and the start of
// its Actual, with numbers and quoted values (times, ids, nonces) left out. The whole Actual
// is reduced before the cut, so a longer id early on cannot push the comparison elsewhere.
std::string cause_key(const CheckResult& check) {
  std::string shape;
  bool quoted = false;
  for (const char c : check.actual) {
    const bool digit = c >= '0' && c <= '9';
    if (c == '"') {
      quoted = !quoted;
      if (quoted) shape += "\"…\"";  // a quoted value stands for any value
    } else if (quoted || (digit && !shape.empty() && shape.back() == '#')) {
      continue;  // inside a quoted value, or a number already written as '#'
    } else {
      shape += digit ? '#' : c;
    }
  }
  return std::string(to_string(check.outcome)) + "|" + utf8_prefix(shape, kCauseShapeBytes);
}

}  // namespace

std::vector<RootCause> root_causes(const RunResult& run) {
  std::vector<RootCause> causes;
  for (const auto& f : run.findings) {
    if (f.cases.size() >= kRootCauseMinCases && verdict_fails(f.verdict, true))
      causes.push_back({f.check, f.transport, f.verdict, true, f.cases, f.example});
  }
  std::vector<std::pair<std::string, RootCause>> subject;  // key -> cause
  for (const auto& result : run.cases) {
    for (const auto& check : result.checks) {
      if (check.kind != CheckKind::Subject || !verdict_fails(check.verdict, true)) continue;
      const auto key = result.transport + "|" + check.short_id + "|" + cause_key(check);
      auto it = std::find_if(subject.begin(), subject.end(),
                             [&](const auto& entry) { return entry.first == key; });
      if (it == subject.end()) {
        subject.push_back(
            {key, {check.short_id, result.transport, check.verdict, false, {}, check.actual}});
        it = subject.end() - 1;
      }
      it->second.verdict = worst(it->second.verdict, check.verdict);
      it->second.cases.push_back(result.case_id);
    }
  }
  for (auto& [key, cause] : subject) {
    if (cause.cases.size() >= kRootCauseMinCases) causes.push_back(std::move(cause));
  }
  std::stable_sort(causes.begin(), causes.end(), [](const RootCause& a, const RootCause& b) {
    return a.cases.size() > b.cases.size();
  });
  return causes;
}

}  // namespace mcpping
