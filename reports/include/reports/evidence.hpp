// Human-readable evidence for a case: the text printed under a failing case and used as the
// JUnit <failure> body.
#pragma once

#include <string>

#include "reports/results.hpp"

namespace mcpping {

// One line: "[MUST] ping/idle:pong-while-idle — <actual, shortened>".
std::string check_headline(const CheckResult& check);

// The evidence block for a case whose verdict is not PASS: each notable check with its
// spec sentence and Expected/Actual (collateral ones as notes: findings of the run), the
// checks not judged and why, then the transcript excerpt and the evidence folder.
std::string evidence_text(const CaseResult& result);

// "[MUST] ping/x:session-header — not judged: its premise never happened: ..."
std::string not_judged_line(const NotJudgedCheck& check);

// "FAIL [MUST] http:session-id (streamable-http), 40 cases — <first evidence>"
std::string finding_line(const Finding& finding);

// "40 cases (streamable-http): pong FAIL — <first evidence>" or, for a finding, its line.
std::string root_cause_line(const RootCause& cause);

}  // namespace mcpping
