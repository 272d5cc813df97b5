#include "conformance/judge.hpp"

#include <cstddef>

namespace mcpping {

Verdict judge(Level level, Outcome outcome) {
  if (outcome == Outcome::NotJudged) return Verdict::Informational;  // not asked; never blame
  using V = Verdict;
  // The table of judge.hpp: rows in the order of Level's enumerators, columns in the order of
  // Outcome's (met, degraded, broken, not reached).
  constexpr Verdict kVerdicts[4][4] = {
      {V::Pass, V::NonStrict, V::Fail, V::Fail},                                 // MUST
      {V::Pass, V::NonStrict, V::NonStrict, V::NonStrict},                       // SHOULD
      {V::Informational, V::Informational, V::Informational, V::Informational},  // INFO
      {V::Pass, V::Informational, V::Informational, V::Informational},           // MAY
  };
  return kVerdicts[static_cast<std::size_t>(level)][static_cast<std::size_t>(outcome)];
}

}  // namespace mcpping
