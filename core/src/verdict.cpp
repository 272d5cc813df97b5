#include "core/verdict.hpp"

#include <array>

namespace mcpping {

namespace {

constexpr std::array<std::string_view, 4> kLevelNames = {"MUST", "SHOULD", "INFO", "MAY"};
constexpr std::array<std::string_view, 5> kOutcomeNames = {"met", "degraded", "broken",
                                                           "not_reached", "not_judged"};
constexpr std::array<std::string_view, 6> kVerdictNames = {
    "PASS", "INFORMATIONAL", "UNSUPPORTED", "NON_STRICT", "FAIL", "ERROR"};

template <typename Enum, std::size_t N>
std::optional<Enum> parse(const std::array<std::string_view, N>& names, std::string_view text) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(Level level) { return kLevelNames.at(static_cast<std::size_t>(level)); }

std::string_view to_string(Outcome outcome) {
  return kOutcomeNames.at(static_cast<std::size_t>(outcome));
}

std::string_view to_string(Verdict verdict) {
  return kVerdictNames.at(static_cast<std::size_t>(verdict));
}

std::optional<Level> parse_level(std::string_view text) { return parse<Level>(kLevelNames, text); }

std::optional<Outcome> parse_outcome(std::string_view text) {
  return parse<Outcome>(kOutcomeNames, text);
}

std::optional<Verdict> parse_verdict(std::string_view text) {
  return parse<Verdict>(kVerdictNames, text);
}

Verdict worst(Verdict a, Verdict b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

}  // namespace mcpping
