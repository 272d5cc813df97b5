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
Verdict judge(Level level, Outcome outcome);

// The verdict of a check in a case whose script stopped because the client skipped something
// it MAY or SHOULD skip and the rest of the case needs (a GET stream it never opened, a
// stream it never resumed; the step that waited records that, under its own level): a check
// never reached says nothing about the client, INFORMATIONAL; any other as judge() says.
Verdict judge_behind_skip(Level level, Outcome outcome);

}  // namespace mcpping
