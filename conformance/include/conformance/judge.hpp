// The one place where a verdict is decided (docs/verdicts.md, "The judge").
#pragma once

#include "core/verdict.hpp"

namespace mcpping {

// The verdict of a check of `level` whose observation was `outcome`:
//
//            met    degraded       broken         not reached
//   MUST     PASS   NON_STRICT     FAIL           FAIL
//   SHOULD   PASS   NON_STRICT     NON_STRICT     NON_STRICT
//   MAY      PASS   INFORMATIONAL  INFORMATIONAL  INFORMATIONAL
//   INFO     INFORMATIONAL, whatever happened
// A check whose premise never happened (Outcome::NotJudged) has no verdict: the evaluation
// lists it apart and never asks.
Verdict judge(Level level, Outcome outcome);

}  // namespace mcpping
