#include "engine/verdict.hpp"

#include <array>

namespace mcpping {

namespace {
constexpr std::array<std::string_view, 4> kLevelNames = {"MUST", "SHOULD", "INFO", "MAY"};
constexpr std::array<std::string_view, 6> kVerdictNames = {
    "PASS", "INFORMATIONAL", "UNSUPPORTED", "NON_STRICT", "FAIL", "ERROR"};
}  // namespace

std::string_view to_string(Level level) { return kLevelNames.at(static_cast<std::size_t>(level)); }

std::string_view to_string(Verdict verdict) {
  return kVerdictNames.at(static_cast<std::size_t>(verdict));
}

std::optional<Level> parse_level(std::string_view text) {
  for (std::size_t i = 0; i < kLevelNames.size(); ++i) {
    if (kLevelNames[i] == text) return static_cast<Level>(i);
  }
  return std::nullopt;
}

std::optional<Verdict> parse_verdict(std::string_view text) {
  for (std::size_t i = 0; i < kVerdictNames.size(); ++i) {
    if (kVerdictNames[i] == text) return static_cast<Verdict>(i);
  }
  return std::nullopt;
}

Verdict failure_verdict(Level level) {
  switch (level) {
    case Level::Must:
      return Verdict::Fail;
    case Level::Should:
      return Verdict::NonStrict;
    case Level::Info:
    case Level::May:
      return Verdict::Informational;
  }
  return Verdict::Fail;
}

Verdict worst(Verdict a, Verdict b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

bool fails_run(Verdict verdict, bool strict) {
  switch (verdict) {
    case Verdict::Fail:
    case Verdict::Error:
      return true;
    case Verdict::NonStrict:
      return strict;
    default:
      return false;
  }
}

}  // namespace mcpping
