#include "conformance/judge.hpp"

namespace mcpping {

Verdict judge(Level level, Outcome outcome) {
  if (outcome == Outcome::NotJudged) return Verdict::Informational;  // not asked; never blame
  switch (level) {
    case Level::Info:
      return Verdict::Informational;
    case Level::May:
      return outcome == Outcome::Met ? Verdict::Pass : Verdict::Informational;
    case Level::Should:
      return outcome == Outcome::Met ? Verdict::Pass : Verdict::NonStrict;
    case Level::Must:
      break;
  }
  switch (outcome) {
    case Outcome::Met:
      return Verdict::Pass;
    case Outcome::Degraded:
      return Verdict::NonStrict;
    case Outcome::Broken:
    case Outcome::NotReached:
      return Verdict::Fail;
    case Outcome::NotJudged:
      break;
  }
  return Verdict::Fail;
}

}  // namespace mcpping
