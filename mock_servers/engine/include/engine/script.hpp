// The script language of the mock servers: what the runner may use of the engine. It
// validates a fixture's script and lists the checks it declares (docs/scenario-format.md).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "core/check.hpp"
#include "core/scenario.hpp"
#include "engine/step.hpp"

namespace mcpping {

// One step of a parsed script: its action and its typed form.
struct ScriptStep {
  std::string_view action;
  std::unique_ptr<Step> step;
};

struct ParsedScript {
  std::vector<ScriptStep> steps;
  // Every check the script declares, in script order, each with the transports its step
  // runs on.
  std::vector<CheckDef> checks;
};

// Validates a script array (pointers start at "/script") and parses each step into its typed
// form. Throws FixtureError naming file, pointer and reason.
ParsedScript parse_script(const Json& script, const ScriptContext& context);

// A ScriptValidator (core/scenario.hpp): parse_script(), summarised.
ScriptSummary validate_script(const Json& script, const ScriptContext& context);

// Checks a resolve_script() result, the mock servers' input, as a whole (its header, and its
// script for its one transport) and parses its script. Throws FixtureError naming `file`.
ParsedScript parse_resolved_script(const Json& resolved, const std::string& file);

}  // namespace mcpping
