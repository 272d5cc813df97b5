// The check registry: one definition per check the suite itself records (the handshake, the
// transport and HTTP rules, the driver's fate), and the rules every check is judged by:
// its kind, whether a miss stops the script, and whether it applies at a revision. Fixture
// checks are declared as data (docs/scenario-format.md) and follow the same rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/check.hpp"
#include "core/spec_reference.hpp"

namespace mcpping {

// A check built into the suite: the same id, level, kind and citations in every case.
struct BuiltinCheck {
  std::string_view id;
  Level level;
  CheckKind kind;
  std::vector<std::string_view> spec;  // every sentence a record of it may cite
  std::string_view premise;            // what must have happened for it to be judged
  std::string_view expected;
};

// Every built-in check, in a stable order (list --json, docs/catalogue.md).
const std::vector<BuiltinCheck>& builtin_checks();

// The definition of built-in check `id` citing all its sentences, or only `spec_key` (one
// of them: the sentence a record breaks). Throws std::logic_error for an unknown id or key:
// a programming error, caught by the registry's tests.
CheckDef builtin_check(std::string_view id);
CheckDef builtin_check(std::string_view id, std::string_view spec_key);

// Whether `id` is a built-in check's.
bool is_builtin_check(std::string_view id);

// The Expected text of built-in check `id` (throws as builtin_check does).
std::string_view builtin_expected(std::string_view id);

// Whether a missed check stops the script: only a MUST does. A SHOULD, MAY or INFO check
// records the miss and the case goes on to what it is about.
bool miss_stops_script(const CheckDef& check);

// Whether the sentence's revision text ("2024-11-05..2025-11-25", "2025-11-25", "JSON-RPC
// 2.0", "suite rule", ...) covers `revision`. A text that names no MCP revision (JSON-RPC, an
// RFC, a suite rule) covers every revision.
bool revision_text_covers(std::string_view text, std::string_view revision);

// Why `check` does not apply to a session at `revision`: none of its citations covers it.
// nullopt when it applies (or when a citation is unknown: the fixture loader refuses those).
std::optional<std::string> not_applicable_at(const CheckDef& check, std::string_view revision,
                                             const SpecReferences& refs);

// The revisions `check` applies to, as "2024-11-05..2025-11-25" or a list of such ranges
// joined with ", " (list --json, docs/catalogue.md).
std::string applicable_revisions(const CheckDef& check, const SpecReferences& refs);

}  // namespace mcpping
