#include "reports/results.hpp"

#include <algorithm>

namespace mcpping {

VerdictCounts count_verdicts(const std::vector<CaseResult>& cases) {
  VerdictCounts counts;
  for (const auto& result : cases) {
    ++counts.total;
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
