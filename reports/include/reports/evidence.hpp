// Human-readable evidence for a case: the text printed under a failing case and used as the
// JUnit <failure> body.
#pragma once

#include <string>

#include "reports/results.hpp"

namespace mcpping {

// One line: "[MUST] ping/idle:pong-while-idle — <actual, shortened>".
std::string check_headline(const CheckResult& check);

// The evidence block for a case whose verdict is not PASS: each notable check with its
// spec sentence and Expected/Actual, then the transcript excerpt and the evidence folder.
std::string evidence_text(const CaseResult& result);

}  // namespace mcpping
