// Scenario fixtures: loading, validation and resolution for one run.
// The format is documented in docs/scenario-format.md.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "core/fixture_reader.hpp"
#include "core/revision.hpp"
#include "core/spec_reference.hpp"
#include "core/transport.hpp"
#include "core/verdict.hpp"

namespace mcpping {

using Json = nlohmann::json;

// A check on one of the driver's step lines.
struct DriverCheck {
  CheckDef check;
  std::size_t step = 0;  // index into driver_steps
  Json expect;           // a pattern (docs/scenario-format.md)
};

// The timeout table: name -> milliseconds.
using TimeoutTable = std::map<std::string, double>;

struct Defaults {
  TimeoutTable timeouts;
  std::size_t line_cap_bytes = 1 << 20;
  Json server_info;
  Json capabilities;
  Json tools;
};
Defaults load_defaults(const std::filesystem::path& file);

struct Scenario {
  std::string id;  // e.g. "ping/colliding-id"
  std::filesystem::path file;
  std::string title;
  std::string description;
  std::string catches;
  std::vector<std::string> transports;
  // For each known transport the case does not run on, why it means nothing there (one line,
  // shown in docs/catalogue.md).
  std::map<std::string, std::string> not_on;
  // By default a case applies to every revision with the initialize handshake (and ping).
  std::string revision_from = known_revisions().front();
  std::string revision_until = latest_legacy_revision();
  Json driver_steps;  // array
  std::vector<DriverCheck> driver_checks;
  Json script;                        // array of steps, as in the file
  Level deadline_kill = Level::Must;  // Must: a hung driver is FAIL; Info: INFORMATIONAL
  // Under an official harness: the level of the driver checks its exit status stands in for
  // (the strongest of them; Must when the case has none).
  Level harness_exit = Level::Must;
  // Runs alone, never beside other cases: its verdict depends on CPU time (a burst of pongs
  // judged against the cap), which other cases on a small machine would take away.
  bool exclusive = false;
  Json http;  // the optional top-level "http" object, else null
  // Every check the script declares, in script order (driver checks not included).
  std::vector<CheckDef> script_checks;
  // Timeout names the script always waits out (ScriptSummary::fixed_waits).
  std::vector<std::string> fixed_waits;

  bool runs_on(std::string_view transport) const;
  bool applies_to(std::string_view revision) const;
  // The time the script spends in fixed waits, whatever the client does.
  double fixed_wait_ms(const TimeoutTable& timeouts) const;
};

// What a script validator needs besides the script.
struct ScriptContext {
  std::string file;                                      // named in errors
  const TimeoutTable* timeouts = nullptr;                // names `within`, `window`... may use
  const SpecReferences* refs = nullptr;                  // when set, spec keys must exist here
  const std::vector<std::string>* transports = nullptr;  // the case's transports, when known
};

// What validating a script tells the catalogue about it.
struct ScriptSummary {
  // Every check it declares, in script order, each with the transports its step runs on.
  std::vector<CheckDef> checks;
  // The timeouts (names in the timeout table) its steps always wait out, whatever the client
  // does: idle windows, quiet windows, pauses. The runner schedules by them.
  std::vector<std::string> fixed_waits;
};

// Validates a script array (pointers start at "/script") and summarises it. Throws
// FixtureError. The script language belongs to the mock servers' engine (engine/script.hpp).
using ScriptValidator = std::function<ScriptSummary(const Json&, const ScriptContext&)>;

// Loads and validates one fixture. `id` is the case id (path below scenarios/, no .json).
// Throws FixtureError naming file, field and reason.
Scenario load_scenario(const std::filesystem::path& file, const std::string& id,
                       const Defaults& defaults, const SpecReferences& refs,
                       const ScriptValidator& validate_script);
// The same for a fixture's text already read; `file` names it in errors.
Scenario parse_scenario(const std::string& text, const std::filesystem::path& file,
                        const std::string& id, const Defaults& defaults, const SpecReferences& refs,
                        const ScriptValidator& validate_script);

// Which fixtures to load, by case id; an empty function wants them all.
using ScenarioFilter = std::function<bool(const std::string& id)>;

// Loads every fixture under `scenarios_dir` that `wanted` names, sorted by id. Throws on the
// first broken one. A run of a few cases loads only theirs: parsing and validating the whole
// catalogue was most of a one-case run's own CPU.
std::vector<Scenario> load_catalogue(const std::filesystem::path& scenarios_dir,
                                     const Defaults& defaults, const SpecReferences& refs,
                                     const ScriptValidator& validate_script,
                                     const ScenarioFilter& wanted = {});

// What one case needs to know at run time.
struct RunSettings {
  std::string transport{to_string(Transport::Stdio)};
  std::string revision = default_revision();
  double timeout_multiplier = 1.0;
};

// The timeout table scaled by the multiplier.
TimeoutTable scaled_timeouts(const Defaults& defaults, double multiplier);
// The timeout `name` of a scaled table, in whole milliseconds rounded up.
std::chrono::milliseconds scaled_ms(const TimeoutTable& scaled, const std::string& name);

// The self-contained script file the mock server runs: the scenario's script and checks,
// the scaled timeout table, the defaults and the run settings. The mock server needs
// nothing else.
Json resolve_script(const Scenario& scenario, const Defaults& defaults, const RunSettings& run);

// driver_steps with named timeouts as milliseconds (an idle step's "timeout" its "ms", a request
// step's "request_timeout" the contract's "timeout_ms") and $repeat macros as their strings.
Json resolve_driver_steps(const Scenario& scenario, const TimeoutTable& scaled);

// Checks the top level of a resolve_script() result (the mock servers' input) and returns
// its timeout table; the script itself is the engine's to parse. Throws FixtureError.
TimeoutTable validate_resolved_header(const Json& resolved, const std::string& file);

}  // namespace mcpping
