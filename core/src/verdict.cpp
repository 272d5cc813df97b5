#include "core/verdict.hpp"

#include <array>

#include "spelling_table.hpp"

namespace mcpping {

constexpr std::array<std::string_view, 4> kLevelNames = {"MUST", "SHOULD", "INFO", "MAY"};
constexpr std::array<std::string_view, 5> kOutcomeNames = {"met", "degraded", "broken",
                                                           "not_reached", "not_judged"};
constexpr std::array<std::string_view, 6> kVerdictNames = {
    "PASS", "INFORMATIONAL", "UNSUPPORTED", "NON_STRICT", "FAIL", "ERROR"};

std::string_view to_string(Level level) { return spelling_table::row_of(kLevelNames, level); }

std::string_view to_string(Outcome outcome) {
  return spelling_table::row_of(kOutcomeNames, outcome);
}

std::string_view to_string(Verdict verdict) {
  return spelling_table::row_of(kVerdictNames, verdict);
}

std::optional<Level> parse_level(std::string_view text) {
  return spelling_table::find<Level>(kLevelNames, text);
}

std::optional<Outcome> parse_outcome(std::string_view text) {
  return spelling_table::find<Outcome>(kOutcomeNames, text);
}

std::optional<Verdict> parse_verdict(std::string_view text) {
  return spelling_table::find<Verdict>(kVerdictNames, text);
}

Verdict worst(Verdict a, Verdict b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

}  // namespace mcpping
