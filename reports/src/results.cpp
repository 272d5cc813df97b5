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
  // The case's own subject first, then collateral checks; the worst first within each.
  std::stable_sort(notable.begin(), notable.end(), [](const CheckResult* a, const CheckResult* b) {
    if (a->collateral != b->collateral) return !a->collateral;
    return static_cast<int>(a->verdict) > static_cast<int>(b->verdict);
  });
  return notable;
}

std::vector<CollateralDefect> collateral_defects(const RunResult& run) {
  std::vector<CollateralDefect> defects;
  for (const auto& result : run.cases) {
    for (const auto& check : result.checks) {
      if (!check.collateral || !verdict_fails(check.verdict, run.info.strict)) continue;
      auto it = std::find_if(defects.begin(), defects.end(),
                             [&](const CollateralDefect& d) { return d.check == check.short_id; });
      if (it == defects.end()) {
        defects.push_back({check.short_id, check.level, 0, check.actual});
        it = defects.end() - 1;
      }
      ++it->cases;
    }
  }
  std::stable_sort(
      defects.begin(), defects.end(),
      [](const CollateralDefect& a, const CollateralDefect& b) { return a.cases > b.cases; });
  return defects;
}

}  // namespace mcpping
