#include "conformance/judge.hpp"

namespace mcpping {

Verdict judge(Level level, Outcome outcome) {
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
  }
  return Verdict::Fail;
}

Verdict judge_behind_skip(Level level, Outcome outcome) {
  return outcome == Outcome::NotReached ? Verdict::Informational : judge(level, outcome);
}

}  // namespace mcpping
