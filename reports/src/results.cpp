#include "reports/results.hpp"

#include <algorithm>

namespace mcpping {

bool verdict_fails(Verdict verdict, bool strict) {
  return verdict == Verdict::Fail || verdict == Verdict::Error ||
         (strict && verdict == Verdict::NonStrict);
}

bool case_fails_run(const CaseResult& result, bool strict) {
  switch (result.expectation) {
    case CaseResult::Expectation::kExpectedFailure:
    case CaseResult::Expectation::kFlaky:
      return result.verdict == Verdict::Error;  // the suite's own trouble is never expected
    case CaseResult::Expectation::kStale:
      return true;
    case CaseResult::Expectation::kNone:
      break;
  }
  return verdict_fails(result.verdict, strict);
}

VerdictCounts count_verdicts(const std::vector<CaseResult>& cases) {
  VerdictCounts counts;
  for (const auto& result : cases) {
    ++counts.total;
    if (result.expectation == CaseResult::Expectation::kStale) ++counts.stale;
    if (result.verdict != Verdict::Error) {
      if (result.expectation == CaseResult::Expectation::kExpectedFailure) {
        ++counts.expected_failures;
        continue;
      }
      if (result.expectation == CaseResult::Expectation::kFlaky &&
          result.verdict != Verdict::Pass) {
        ++counts.flaky;
        continue;
      }
    }
    switch (result.verdict) {
      case Verdict::Pass:
        ++counts.pass;
        break;
      case Verdict::NonStrict:
        ++counts.non_strict;
        break;
      case Verdict::Fail:
        ++counts.fail;
        break;
      case Verdict::Informational:
        ++counts.informational;
        break;
      case Verdict::Unsupported:
        ++counts.unsupported;
        break;
      case Verdict::Error:
        ++counts.error;
        break;
    }
  }
  return counts;
}

std::vector<const CheckResult*> notable_checks(const CaseResult& result) {
  std::vector<const CheckResult*> notable;
  for (const auto& check : result.checks) {
    if (check.verdict != Verdict::Pass) notable.push_back(&check);
  }
  std::stable_sort(notable.begin(), notable.end(), [](const CheckResult* a, const CheckResult* b) {
    return static_cast<int>(a->verdict) > static_cast<int>(b->verdict);
  });
  return notable;
}

}  // namespace mcpping
