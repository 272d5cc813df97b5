// Levels and verdicts, as design/VERDICTS.md defines them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mcpping {

// May: welcome but not required (met: PASS, unmet: INFORMATIONAL), docs/verdicts.md.
enum class Level { Must, Should, Info, May };

// Ordered by severity: a case's verdict is the worst of its checks' verdicts.
enum class Verdict { Pass, Informational, Unsupported, NonStrict, Fail, Error };

std::string_view to_string(Level level);      // "MUST", "SHOULD", "INFO", "MAY"
std::string_view to_string(Verdict verdict);  // "PASS", "NON_STRICT", ...
std::optional<Level> parse_level(std::string_view text);
std::optional<Verdict> parse_verdict(std::string_view text);

// The verdict of a check of this level that was not met.
Verdict failure_verdict(Level level);

// The more severe of the two.
Verdict worst(Verdict a, Verdict b);

// Whether a case with this verdict fails the run.
bool fails_run(Verdict verdict, bool strict);

}  // namespace mcpping
