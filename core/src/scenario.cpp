#include "core/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/driver_op.hpp"
#include "core/files.hpp"
#include "core/pattern.hpp"
#include "core/text.hpp"

namespace mcpping {

namespace {

const std::vector<std::string> kTopLevelKeys = {
    "title",        "description",   "catches", "transports",    "not_on", "revisions",
    "driver_steps", "driver_checks", "script",  "deadline_kill", "http",   "exclusive"};

using Checker = FixtureReader;

// `text` at `pointer` parsed by a registry's parse_*(), whose std::invalid_argument ("unknown
// op \"x\" (known: ...)") becomes the FixtureError.
template <typename Parse>
auto parse_at(const Checker& c, const std::string& text, const std::string& pointer, Parse parse) {
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    c.fail(pointer, e.what());
  }
}

void check_timeout(const Checker& c, const Json& value, const std::string& pointer,
                   const TimeoutTable& timeouts) {
  const auto name = c.string(value, pointer);
  if (timeouts.count(name)) return;
  std::vector<std::string> known;
  for (const auto& [known_name, ms] : timeouts) known.push_back(known_name);
  c.fail(pointer, "unknown timeout \"" + name + "\" (known: " + join(known, ", ") + ")");
}

// Tool arguments are literal JSON but for {"$repeat": [TEXT, N]}, which the runner writes out
// (a large argument kept short in the fixture). Any other "$" object is a typo.
void check_argument_macros(const Checker& c, const Json& value, const std::string& pointer) {
  if (value.is_object() && value.size() == 1 && value.begin().key().rfind('$', 0) == 0) {
    if (value.begin().key() != "$repeat")
      c.fail(pointer, "arguments know only the macro $repeat, not " + value.begin().key());
    if (auto problem = check_repeat(value.begin().value()))
      c.fail(pointer + "/$repeat" + problem->pointer, problem->reason);
    return;
  }
  if (value.is_object()) {
    for (const auto& [key, item] : value.items())
      check_argument_macros(c, item, pointer + "/" + key);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      check_argument_macros(c, value[i], pointer + "/" + std::to_string(i));
  }
}

// A tool call's "name" and "arguments", of a call_tool step or of one concurrent call.
void check_call(const Checker& c, const Json& call, const std::string& p) {
  c.nonempty_string(c.member(call, "name", p), p + "/name");
  if (call.contains("arguments")) {
    c.object(call["arguments"], p + "/arguments");
    check_argument_macros(c, call["arguments"], p + "/arguments");
  }
}

void check_driver_steps(const Checker& c, const Json& steps, const TimeoutTable& timeouts) {
  c.array(steps, "/driver_steps");
  if (steps.empty()) c.fail("/driver_steps", "must not be empty");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto p = "/driver_steps/" + std::to_string(i);
    const auto& step = c.object(steps[i], p);
    const auto op =
        parse_at(c, c.string(c.member(step, "op", p), p + "/op"), p + "/op", parse_driver_op);
    c.only_keys(step, traits_of(op).keys, p);
    if (op == DriverOp::CallTool) {
      check_call(c, step, p);
    } else if (op == DriverOp::CallToolsConcurrently) {
      // Contract v1.2: calls in flight together need at least two of them.
      const auto& calls = c.array(c.member(step, "calls", p), p + "/calls");
      if (calls.size() < 2) c.fail(p + "/calls", "needs at least 2 calls");
      for (std::size_t j = 0; j < calls.size(); ++j) {
        const auto q = p + "/calls/" + std::to_string(j);
        const auto& call = c.object(calls[j], q);
        c.only_keys(call, {"name", "arguments"}, q);
        check_call(c, call, q);
      }
    } else if (op == DriverOp::Idle) {
      if (step.contains("ms") == step.contains("timeout")) {
        c.fail(p, "an idle step needs exactly one of \"ms\" and \"timeout\"");
      }
      if (step.contains("ms")) c.count(step["ms"], p + "/ms", 0);
      if (step.contains("timeout")) check_timeout(c, step["timeout"], p + "/timeout", timeouts);
    }
    if (step.contains("request_timeout"))
      check_timeout(c, step["request_timeout"], p + "/request_timeout", timeouts);
  }
}

// A driver check's "given" (parsed by parse_check): each label one that a step of the script
// sends or arms under.
void check_given_labels(const Checker& c, const std::vector<std::string>& labels,
                        const Json& script, const std::string& p) {
  for (const auto& label : labels) {
    const bool defined = std::any_of(script.begin(), script.end(), [&](const Json& step) {
      return step.is_object() && step.value("label", Json()) == Json(label);
    });
    if (!defined) c.fail(p, "no step of the script sends under the label \"" + label + "\"");
  }
}

void check_http_options(const Checker& c, const Json& http) {
  c.object(http, "/http");
  c.only_keys(http, {"post_responses"}, "/http");
  if (http.contains("post_responses")) {
    const auto mode = c.string(http["post_responses"], "/http/post_responses");
    if (mode != "auto" && mode != "sse")
      c.fail("/http/post_responses", "must be \"auto\" or \"sse\"");
  }
}

// The "timeouts" of defaults.json or of a resolved script: each positive, and every one the
// interpreter's defaults use present.
TimeoutTable read_timeouts(const Checker& c, const Json& root) {
  TimeoutTable timeouts;
  const auto& table = c.object(c.member(root, "timeouts", ""), "/timeouts");
  for (const auto& [name, ms] : table.items()) {
    if (!ms.is_number() || ms.get<double>() <= 0) {
      c.fail("/timeouts/" + name, "must be a positive number of milliseconds");
    }
    timeouts[name] = ms.get<double>();
  }
  for (const auto& name :
       {"case_deadline_ms", "expect_ms", "observe_ms", "pong_cap_ms", "quiet_ms", "startup_ms"}) {
    if (!timeouts.count(name)) c.fail("/timeouts/" + std::string(name), "required");
  }
  return timeouts;
}

// "transports", and "not_on": why the case leaves a transport out (the catalogue's own cases
// give one for each).
void parse_transports(const Checker& c, const Json& root, Scenario& s) {
  const auto& transports = c.array(c.member(root, "transports", ""), "/transports");
  if (transports.empty()) c.fail("/transports", "must name at least one transport");
  for (std::size_t i = 0; i < transports.size(); ++i) {
    const auto p = "/transports/" + std::to_string(i);
    auto t = c.string(transports[i], p);
    parse_at(c, t, p, parse_transport);
    if (std::find(s.transports.begin(), s.transports.end(), t) != s.transports.end()) {
      c.fail(p, "transport \"" + t + "\" is listed twice");
    }
    s.transports.push_back(std::move(t));
  }
  const Json no_reasons = Json::object();
  const auto& not_on = root.contains("not_on") ? c.object(root["not_on"], "/not_on") : no_reasons;
  for (const auto& [t, why] : not_on.items()) {
    const auto p = "/not_on/" + t;
    parse_at(c, t, p, parse_transport);
    if (s.runs_on(t)) c.fail(p, "the case runs on " + t + ": no reason to give");
    s.not_on[t] = c.nonempty_string(why, p);
  }
}

void parse_revisions(const Checker& c, const Json& root, Scenario& s) {
  if (!root.contains("revisions")) return;
  const auto& r = c.object(root["revisions"], "/revisions");
  c.only_keys(r, {"from", "until"}, "/revisions");
  auto revision = [&](const char* key, std::string& out) {
    if (!r.contains(key)) return;
    const auto p = std::string("/revisions/") + key;
    out = c.string(r[key], p);
    parse_at(c, out, p, parse_revision);
  };
  revision("from", s.revision_from);
  revision("until", s.revision_until);
  if (*revision_index(s.revision_from) > *revision_index(s.revision_until)) {
    c.fail("/revisions", "\"from\" " + s.revision_from + " is after \"until\" " + s.revision_until);
  }
}

// One entry of "driver_checks" at pointer `p`; `all` holds the ids taken so far.
DriverCheck parse_driver_check(const Checker& c, const Json& entry, const std::string& p,
                               const Scenario& s, const SpecReferences& refs,
                               std::vector<CheckDef>& all) {
  const auto& dc = c.object(entry, p);
  c.only_keys(dc, {"id", "level", "spec", "step", "expect", "given"}, p);
  DriverCheck check;
  Json fields{{"id", c.member(dc, "id", p)},
              {"level", c.member(dc, "level", p)},
              {"spec", c.member(dc, "spec", p)}};
  if (dc.contains("given")) fields["given"] = dc["given"];
  check.check = parse_check(c, fields, p, &refs);
  check.step = c.count(c.member(dc, "step", p), p + "/step", 0);
  if (check.step >= s.driver_steps.size()) {
    c.fail(p + "/step", "driver step " + std::to_string(check.step) +
                            " does not exist (there are " + std::to_string(s.driver_steps.size()) +
                            ")");
  }
  check.expect = c.member(dc, "expect", p);
  if (auto problem = check_pattern(check.expect)) {
    c.fail(p + "/expect" + problem->pointer, problem->reason);
  }
  check_given_labels(c, check.check.given, s.script, p + "/given");
  for (const auto& taken : all) {
    if (taken.id == check.check.id) c.fail(p + "/id", "duplicate check id \"" + taken.id + "\"");
  }
  all.push_back(check.check);
  return check;
}

void parse_driver_checks(const Checker& c, const Json& root, const SpecReferences& refs,
                         Scenario& s) {
  if (!root.contains("driver_checks")) return;
  const auto& checks = c.array(root["driver_checks"], "/driver_checks");
  std::vector<CheckDef> all = s.script_checks;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    s.driver_checks.push_back(
        parse_driver_check(c, checks[i], "/driver_checks/" + std::to_string(i), s, refs, all));
  }
}

// "exclusive" and "deadline_kill".
void parse_run_options(const Checker& c, const Json& root, Scenario& s) {
  if (root.contains("exclusive")) {
    if (!root["exclusive"].is_boolean()) c.fail("/exclusive", "must be true or false");
    s.exclusive = root["exclusive"].get<bool>();
  }
  if (root.contains("deadline_kill")) {
    const auto kill = c.string(root["deadline_kill"], "/deadline_kill");
    if (kill != "FAIL" && kill != "INFO") c.fail("/deadline_kill", "must be \"FAIL\" or \"INFO\"");
    s.deadline_kill = kill == "FAIL" ? Level::Must : Level::Info;
  }
}

}  // namespace

Defaults load_defaults(const std::filesystem::path& file) {
  const Checker c(file.string());
  const auto root = parse_json_file(file);
  c.object(root, "");
  c.only_keys(root, {"timeouts", "line_cap_bytes", "server_info", "capabilities", "tools"}, "");
  return {.timeouts = read_timeouts(c, root),
          .line_cap_bytes = c.count(c.member(root, "line_cap_bytes", ""), "/line_cap_bytes", 1024),
          .server_info = c.object(c.member(root, "server_info", ""), "/server_info"),
          .capabilities = c.object(c.member(root, "capabilities", ""), "/capabilities"),
          .tools = c.array(c.member(root, "tools", ""), "/tools")};
}

Scenario load_scenario(const std::filesystem::path& file, const std::string& id,
                       const Defaults& defaults, const SpecReferences& refs,
                       const ScriptValidator& validate_script) {
  const auto text = try_read_file(file);
  if (!text) throw FixtureError(file.string(), "", "cannot read the file");
  return parse_scenario(*text, file, id, defaults, refs, validate_script);
}

Scenario parse_scenario(const std::string& text, const std::filesystem::path& file,
                        const std::string& id, const Defaults& defaults, const SpecReferences& refs,
                        const ScriptValidator& validate_script) {
  const Checker c(file.string());
  const auto root = parse_json_text(text, file.string());
  c.object(root, "");
  c.only_keys(root, kTopLevelKeys, "");

  Scenario s;
  s.id = id;
  s.file = file;
  s.title = c.nonempty_string(c.member(root, "title", ""), "/title");
  s.description = c.nonempty_string(c.member(root, "description", ""), "/description");
  s.catches = c.nonempty_string(c.member(root, "catches", ""), "/catches");
  parse_transports(c, root, s);
  parse_revisions(c, root, s);

  s.driver_steps = c.member(root, "driver_steps", "");
  check_driver_steps(c, s.driver_steps, defaults.timeouts);
  if (root.contains("http")) {
    check_http_options(c, root["http"]);
    s.http = root["http"];
  }

  s.script = c.member(root, "script", "");
  auto summary = validate_script(
      s.script, ScriptContext{file.string(), &defaults.timeouts, &refs, &s.transports});
  s.script_checks = std::move(summary.checks);
  s.fixed_waits = std::move(summary.fixed_waits);
  parse_driver_checks(c, root, refs, s);
  parse_run_options(c, root, s);
  return s;
}

std::vector<Scenario> load_catalogue(const std::filesystem::path& scenarios_dir,
                                     const Defaults& defaults, const SpecReferences& refs,
                                     const ScriptValidator& validate_script,
                                     const ScenarioFilter& wanted) {
  std::vector<std::pair<std::string, std::filesystem::path>> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(scenarios_dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    auto id =
        std::filesystem::relative(entry.path(), scenarios_dir).replace_extension().generic_string();
    if (!wanted || wanted(id)) files.emplace_back(std::move(id), entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Scenario> out;
  for (const auto& [id, path] : files)
    out.push_back(load_scenario(path, id, defaults, refs, validate_script));
  return out;
}

bool Scenario::runs_on(std::string_view transport) const {
  return std::find(transports.begin(), transports.end(), transport) != transports.end();
}

bool Scenario::applies_to(std::string_view revision) const {
  const auto index = revision_index(revision);
  return index && *index >= *revision_index(revision_from) &&
         *index <= *revision_index(revision_until);
}

double Scenario::fixed_wait_ms(const TimeoutTable& timeouts) const {
  double total = 0;
  for (const auto& name : fixed_waits) {
    const auto it = timeouts.find(name);
    if (it != timeouts.end()) total += it->second;
  }
  return total;
}

TimeoutTable scaled_timeouts(const Defaults& defaults, double multiplier) {
  TimeoutTable out;
  for (const auto& [name, ms] : defaults.timeouts) out[name] = ms * multiplier;
  return out;
}

std::chrono::milliseconds scaled_ms(const TimeoutTable& scaled, const std::string& name) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(scaled.at(name))));
}

Json resolve_script(const Scenario& scenario, const Defaults& defaults, const RunSettings& run) {
  Json checks = Json::array();
  for (const auto& check : scenario.script_checks) {
    if (check.applies_to(run.transport)) checks.push_back(to_json(check));
  }
  // Steps limited to other transports are left out; the rest lose their filter.
  Json script = Json::array();
  for (Json step : scenario.script) {
    const auto only = step.value("transports", Json::array({run.transport}));
    if (std::find(only.begin(), only.end(), Json(run.transport)) == only.end()) continue;
    step.erase("transports");
    script.push_back(std::move(step));
  }
  Json http = scenario.http.is_object() ? scenario.http : Json::object();
  if (!http.contains("post_responses")) http["post_responses"] = "auto";
  return Json{{"format", "mcp-ping-script/1"},
              {"scenario", scenario.id},
              {"transport", run.transport},
              {"revision", run.revision},
              {"timeout_multiplier", run.timeout_multiplier},
              {"timeouts", scaled_timeouts(defaults, run.timeout_multiplier)},
              {"line_cap_bytes", defaults.line_cap_bytes},
              {"server",
               {{"server_info", defaults.server_info},
                {"capabilities", defaults.capabilities},
                {"tools", defaults.tools}}},
              {"http", http},
              {"script", script},
              {"checks", checks}};
}

Json resolve_driver_steps(const Scenario& scenario, const TimeoutTable& scaled) {
  Json steps = scenario.driver_steps;
  const auto resolve = [&](Json& step, const char* from, const char* to) {
    if (!step.contains(from)) return;
    const auto name = step[from].get<std::string>();
    const auto it = scaled.find(name);
    if (it == scaled.end()) {
      throw FixtureError(scenario.file.string(), "/driver_steps",
                         "unknown timeout \"" + name + "\"");
    }
    step.erase(from);
    step[to] = static_cast<std::int64_t>(std::llround(it->second));
  };
  for (auto& step : steps) {
    if (step.value("op", "") == to_string(DriverOp::Idle)) resolve(step, "timeout", "ms");
    resolve(step, "request_timeout", "timeout_ms");
    if (step.contains("arguments")) step["arguments"] = expand_repeats(step["arguments"]);
    if (step.contains("calls")) step["calls"] = expand_repeats(step["calls"]);
  }
  return steps;
}

TimeoutTable validate_resolved_header(const Json& resolved, const std::string& file) {
  const Checker c(file);
  c.object(resolved, "");
  if (resolved.value("format", "") != "mcp-ping-script/1") {
    c.fail("/format", "must be \"mcp-ping-script/1\"");
  }
  c.nonempty_string(c.member(resolved, "scenario", ""), "/scenario");
  c.string(c.member(resolved, "transport", ""), "/transport");
  const auto revision = c.string(c.member(resolved, "revision", ""), "/revision");
  if (!revision_index(revision)) c.fail("/revision", "unknown revision \"" + revision + "\"");
  TimeoutTable timeouts = read_timeouts(c, resolved);
  c.count(c.member(resolved, "line_cap_bytes", ""), "/line_cap_bytes", 1024);
  const auto& server = c.object(c.member(resolved, "server", ""), "/server");
  c.object(c.member(server, "server_info", "/server"), "/server/server_info");
  c.object(c.member(server, "capabilities", "/server"), "/server/capabilities");
  c.array(c.member(server, "tools", "/server"), "/server/tools");
  if (resolved.contains("http")) check_http_options(c, resolved["http"]);
  c.array(c.member(resolved, "script", ""), "/script");
  return timeouts;
}

}  // namespace mcpping
