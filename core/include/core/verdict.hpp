// Levels, outcomes and verdicts (docs/verdicts.md). The mock servers record outcomes; only the
// runner's judge (conformance/src/judge.cpp) turns a level and an outcome into a verdict.
#pragma once

#include <optional>
#include <string_view>

namespace mcpping {

// May: welcome but not required. Info: a record of what happened, never judged.
enum class Level { Must, Should, Info, May };

// What a check observed, before any judging.
enum class Outcome {
  Met,         // the client did what the check expects
  Degraded,    // met only in a lesser way (a pong sent only at the next request)
  Broken,      // not met
  NotReached,  // never judged: the client died, closed, or never got there
  NotJudged,   // its premise never happened (no pong POST whose headers could be read)
};

// Ordered by severity: a case's verdict is the worst of its checks' verdicts.
enum class Verdict { Pass, Informational, Unsupported, NonStrict, Fail, Error };

std::string_view to_string(Level level);      // "MUST", "SHOULD", "INFO", "MAY"
std::string_view to_string(Outcome outcome);  // "met", "degraded", "broken", "not_reached", ...
std::string_view to_string(Verdict verdict);  // "PASS", "NON_STRICT", ...
std::optional<Level> parse_level(std::string_view text);
std::optional<Outcome> parse_outcome(std::string_view text);
std::optional<Verdict> parse_verdict(std::string_view text);

// The more severe of the two.
Verdict worst(Verdict a, Verdict b);

}  // namespace mcpping
