#include "engine/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/pattern.hpp"
#include "engine/template.hpp"

namespace mcpping {

namespace {

const std::vector<std::string> kTopLevelKeys = {
    "title",        "description",   "catches", "transports",    "revisions",
    "driver_steps", "driver_checks", "script",  "deadline_kill", "http", "exclusive"};

const std::vector<std::string> kDriverOps = {"connect", "call_tool", "list_tools",
                                             "ping",    "idle",      "close"};

// Each script action and the other keys its step may carry.
const std::map<std::string, std::vector<std::string>>& step_keys() {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"handshake", {}},
      {"expect", {"as", "within", "check"}},
      {"send", {"label", "repeat", "write", "chunk", "on", "sse"}},
      {"send_raw", {"chunk", "on"}},
      {"respond", {"result", "error", "default", "on"}},
      {"expect_response", {"within", "late_within", "check"}},
      {"expect_error", {"code", "within", "check"}},
      {"expect_no_response", {"window", "forbid", "check", "info_check"}},
      {"expect_none", {"window", "check"}},
      {"observe_client_pings", {"window", "check"}},
      {"pause", {}},
      {"stderr", {}},
      {"stderr_bytes", {}},
      {"close_stdin", {}},
      {"close_stdout", {}},
      {"serve_defaults", {}},
      {"await_get_stream", {"within"}},
      {"fail_next_post", {"with"}},
      {"expect_post", {"http", "within", "check"}},
  };
  return keys;
}

// Steps that only make sense on one kind of transport.
const std::set<std::string> kHttpOnlySteps = {"await_get_stream", "fail_next_post", "expect_post"};
const std::set<std::string> kStdioOnlySteps = {"close_stdin", "close_stdout"};

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += sep;
    out += item;
  }
  return out;
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw FixtureError(file.string(), "", "cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Parses with the position of a syntax error turned into line and column.
Json parse_file(const std::filesystem::path& file) {
  const auto text = read_file(file);
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string message = e.what();
    const auto colon = message.find("syntax error");
    if (colon != std::string::npos) message = message.substr(colon);
    throw FixtureError(file.string(), "",
                       "invalid JSON at line " + std::to_string(line) + ", column " +
                           std::to_string(column) + ": " + message);
  }
}

// Field access with errors that name the file and pointer.
class Checker {
 public:
  explicit Checker(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& reason) const {
    throw FixtureError(file_, pointer, reason);
  }

  const Json& object(const Json& value, const std::string& pointer) const {
    if (!value.is_object()) fail(pointer, "must be an object, got " + describe(value));
    return value;
  }
  const Json& array(const Json& value, const std::string& pointer) const {
    if (!value.is_array()) fail(pointer, "must be an array, got " + describe(value));
    return value;
  }
  std::string string(const Json& value, const std::string& pointer) const {
    if (!value.is_string()) fail(pointer, "must be a string, got " + describe(value));
    return value.get<std::string>();
  }
  std::string nonempty_string(const Json& value, const std::string& pointer) const {
    auto text = string(value, pointer);
    if (text.empty()) fail(pointer, "must not be empty");
    return text;
  }
  std::uint64_t count(const Json& value, const std::string& pointer, std::uint64_t min) const {
    if (!value.is_number_integer() ||
        (!value.is_number_unsigned() && value.get<std::int64_t>() < 0) ||
        value.get<std::uint64_t>() < min) {
      fail(pointer, "must be an integer >= " + std::to_string(min) + ", got " + describe(value));
    }
    return value.get<std::uint64_t>();
  }
  const Json& member(const Json& object, const std::string& key, const std::string& pointer) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(pointer + "/" + key, "required");
    return *it;
  }
  void only_keys(const Json& object, const std::vector<std::string>& allowed,
                 const std::string& pointer) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        fail(pointer + "/" + key,
             "unknown field \"" + key + "\" (known: " + join(allowed, ", ") + ")");
      }
    }
  }
  static std::string describe(const Json& value) {
    auto text = value.dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return std::string(to_string(json_kind(value))) + " " + text;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

std::vector<std::string> timeout_names(const TimeoutTable& timeouts) {
  std::vector<std::string> names;
  for (const auto& [name, ms] : timeouts) names.push_back(name);
  return names;
}

void check_timeout(const Checker& c, const Json& value, const std::string& pointer,
                   const TimeoutTable& timeouts) {
  const auto name = c.string(value, pointer);
  if (!timeouts.count(name)) {
    c.fail(pointer,
           "unknown timeout \"" + name + "\" (known: " + join(timeout_names(timeouts), ", ") + ")");
  }
}

CheckDef parse_check(const Checker& c, const Json& value, const std::string& pointer,
                     const SpecReferences* refs) {
  c.object(value, pointer);
  c.only_keys(value, {"id", "level", "spec"}, pointer);
  CheckDef check;
  check.id = c.nonempty_string(c.member(value, "id", pointer), pointer + "/id");
  if (check.id == "handshake" || check.id.rfind("transport:", 0) == 0) {
    c.fail(pointer + "/id", "\"" + check.id + "\" is reserved for the mock server's own checks");
  }
  const auto level_text = c.string(c.member(value, "level", pointer), pointer + "/level");
  const auto level = parse_level(level_text);
  if (!level)
    c.fail(pointer + "/level",
           "unknown level \"" + level_text + "\" (known: MUST, SHOULD, MAY, INFO)");
  check.level = *level;
  const auto& spec = c.array(c.member(value, "spec", pointer), pointer + "/spec");
  if (spec.empty()) c.fail(pointer + "/spec", "must name at least one spec reference");
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const auto sp = pointer + "/spec/" + std::to_string(i);
    auto key = c.nonempty_string(spec[i], sp);
    if (refs && !refs->count(key)) c.fail(sp, "unknown spec reference \"" + key + "\"");
    check.spec.push_back(std::move(key));
  }
  return check;
}

void check_value(const Checker& c, const Json& value, const std::string& pointer, bool is_pattern,
                 const std::set<std::string>& captured, bool has_index) {
  if (is_pattern) {
    if (auto problem = check_pattern(value)) c.fail(pointer + problem->pointer, problem->reason);
  } else if (auto problem = check_template(value)) {
    c.fail(pointer + problem->pointer, problem->reason);
  }
  for (const auto& use : collect_refs(value)) {
    const auto root = ref_root(use.ref);
    if (has_index && use.ref == "i") continue;
    if (root.empty() || !captured.count(root)) {
      c.fail(pointer + use.pointer,
             "${" + use.ref + "} refers to \"" + root + "\", which no earlier step captures" +
                 (captured.empty()
                      ? std::string()
                      : " (captured: " + join({captured.begin(), captured.end()}, ", ") + ")"));
    }
  }
}

void add_check(const Checker& c, std::vector<CheckDef>& checks, CheckDef check,
               const std::string& pointer) {
  for (const auto& existing : checks) {
    if (existing.id == check.id) c.fail(pointer, "duplicate check id \"" + check.id + "\"");
  }
  checks.push_back(std::move(check));
}

void check_driver_steps(const Checker& c, const Json& steps, const TimeoutTable& timeouts) {
  c.array(steps, "/driver_steps");
  if (steps.empty()) c.fail("/driver_steps", "must not be empty");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto p = "/driver_steps/" + std::to_string(i);
    const auto& step = c.object(steps[i], p);
    const auto op = c.string(c.member(step, "op", p), p + "/op");
    if (std::find(kDriverOps.begin(), kDriverOps.end(), op) == kDriverOps.end()) {
      c.fail(p + "/op", "unknown op \"" + op + "\" (known: " + join(kDriverOps, ", ") + ")");
    }
    if (op == "call_tool") {
      c.only_keys(step, {"op", "name", "arguments"}, p);
      c.nonempty_string(c.member(step, "name", p), p + "/name");
      if (step.contains("arguments")) c.object(step["arguments"], p + "/arguments");
    } else if (op == "idle") {
      c.only_keys(step, {"op", "ms", "timeout"}, p);
      if (step.contains("ms") == step.contains("timeout")) {
        c.fail(p, "an idle step needs exactly one of \"ms\" and \"timeout\"");
      }
      if (step.contains("ms")) c.count(step["ms"], p + "/ms", 0);
      if (step.contains("timeout")) check_timeout(c, step["timeout"], p + "/timeout", timeouts);
    } else {
      c.only_keys(step, {"op"}, p);
    }
  }
}

void check_sse(const Checker& c, const Json& sse, const std::string& pointer) {
  c.object(sse, pointer);
  c.only_keys(sse, {"event", "id", "retry", "line_end", "multiline", "prefix"}, pointer);
  // Field values must stay on their line: a line break would start another field.
  auto one_line = [&](const char* key) {
    if (!sse.contains(key)) return;
    const auto text = c.string(sse[key], pointer + "/" + key);
    if (text.find_first_of("\r\n") != std::string::npos)
      c.fail(pointer + "/" + key, "must not contain a line break");
  };
  one_line("event");
  one_line("id");
  if (sse.contains("retry")) c.count(sse["retry"], pointer + "/retry", 0);
  if (sse.contains("line_end")) {
    const auto end = c.string(sse["line_end"], pointer + "/line_end");
    if (end != "\n" && end != "\r\n")
      c.fail(pointer + "/line_end", "must be \"\\n\" or \"\\r\\n\"");
  }
  if (sse.contains("multiline") && !sse["multiline"].is_boolean())
    c.fail(pointer + "/multiline", "must be a boolean");
  if (sse.contains("prefix")) c.string(sse["prefix"], pointer + "/prefix");
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

}  // namespace

FixtureError::FixtureError(std::string file, std::string pointer, std::string reason)
    : std::runtime_error(file + ": " + pointer + ": " + reason),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      reason_(std::move(reason)) {}

const std::vector<std::string>& known_revisions() {
  static const std::vector<std::string> revisions = {"2024-11-05", "2025-03-26", "2025-06-18",
                                                     "2025-11-25", "2026-07-28"};
  return revisions;
}

std::optional<std::size_t> revision_index(std::string_view revision) {
  const auto& all = known_revisions();
  const auto it = std::find(all.begin(), all.end(), revision);
  if (it == all.end()) return std::nullopt;
  return static_cast<std::size_t>(it - all.begin());
}

const std::vector<std::string>& known_transports() {
  static const std::vector<std::string> transports = {"stdio", "streamable-http", "sse"};
  return transports;
}

const std::vector<std::string>& required_timeouts() {
  static const std::vector<std::string> names = {"case_deadline_ms", "expect_ms", "observe_ms",
                                                 "pong_cap_ms",      "quiet_ms",  "settle_ms"};
  return names;
}

CheckDef handshake_check() {
  return CheckDef{"handshake", Level::Must, {"lifecycle.init-first", "lifecycle.initialized"}};
}

Json to_json(const CheckDef& check) {
  return Json{{"id", check.id}, {"level", to_string(check.level)}, {"spec", check.spec}};
}

SpecReferences load_spec_references(const std::filesystem::path& file) {
  const Checker c(file.string());
  const auto root = parse_file(file);
  c.object(root, "");
  SpecReferences refs;
  for (const auto& [key, value] : root.items()) {
    const auto p = "/" + key;
    c.object(value, p);
    c.only_keys(value, {"url", "revision", "text"}, p);
    refs[key] = SpecReference{key, c.nonempty_string(c.member(value, "url", p), p + "/url"),
                              c.nonempty_string(c.member(value, "revision", p), p + "/revision"),
                              c.nonempty_string(c.member(value, "text", p), p + "/text")};
  }
  return refs;
}

Defaults load_defaults(const std::filesystem::path& file) {
  const Checker c(file.string());
  const auto root = parse_file(file);
  c.object(root, "");
  c.only_keys(root, {"timeouts", "line_cap_bytes", "server_info", "capabilities", "tools"}, "");
  Defaults defaults;
  const auto& timeouts = c.object(c.member(root, "timeouts", ""), "/timeouts");
  for (const auto& [name, ms] : timeouts.items()) {
    if (!ms.is_number() || ms.get<double>() <= 0) {
      c.fail("/timeouts/" + name, "must be a positive number of milliseconds");
    }
    defaults.timeouts[name] = ms.get<double>();
  }
  for (const auto& name : required_timeouts()) {
    if (!defaults.timeouts.count(name)) c.fail("/timeouts/" + name, "required");
  }
  defaults.line_cap_bytes = c.count(c.member(root, "line_cap_bytes", ""), "/line_cap_bytes", 1024);
  defaults.server_info = c.object(c.member(root, "server_info", ""), "/server_info");
  defaults.capabilities = c.object(c.member(root, "capabilities", ""), "/capabilities");
  defaults.tools = c.array(c.member(root, "tools", ""), "/tools");
  return defaults;
}

std::vector<CheckDef> validate_script(const Json& script, const std::string& file,
                                      const TimeoutTable& timeouts, const SpecReferences* refs,
                                      const std::vector<std::string>* transports) {
  const Checker c(file);
  c.array(script, "/script");
  if (script.empty()) c.fail("/script", "must not be empty");
  std::vector<CheckDef> checks;
  std::set<std::string> captured;
  std::set<std::string> labels;
  const auto& actions = step_keys();

  // A step limited to some transports ("transports": [...]) runs only there, and so do the
  // checks it declares.
  std::size_t step_checks_begin = 0;
  std::vector<std::string> step_transports;
  const auto close_step = [&] {
    for (std::size_t k = step_checks_begin; k < checks.size(); ++k) {
      checks[k].transports = step_transports;
    }
    step_checks_begin = checks.size();
  };

  for (std::size_t i = 0; i < script.size(); ++i) {
    close_step();
    const auto p = "/script/" + std::to_string(i);
    const auto& step = c.object(script[i], p);
    step_transports.clear();
    if (step.contains("transports")) {
      const auto& list = c.array(step["transports"], p + "/transports");
      if (list.empty()) c.fail(p + "/transports", "must name at least one transport");
      for (std::size_t k = 0; k < list.size(); ++k) {
        const auto name = c.nonempty_string(list[k], p + "/transports/" + std::to_string(k));
        if (transports && std::find(transports->begin(), transports->end(), name) == transports->end()) {
          c.fail(p + "/transports/" + std::to_string(k),
                 "\"" + name + "\" is not one of the case's transports");
        }
        step_transports.push_back(name);
      }
    }
    const std::vector<std::string>* effective = step_transports.empty() ? transports : &step_transports;
    std::vector<std::string> found;
    for (const auto& [key, value] : step.items()) {
      if (actions.count(key)) found.push_back(key);
    }
    if (found.size() != 1) {
      std::vector<std::string> known;
      for (const auto& [name, extra] : actions) known.push_back(name);
      c.fail(p, found.empty() ? "no action (known: " + join(known, ", ") + ")"
                              : "more than one action: " + join(found, ", "));
    }
    const auto& action = found.front();
    if (effective) {
      const bool has_stdio =
          std::find(effective->begin(), effective->end(), "stdio") != effective->end();
      const bool has_http = std::any_of(effective->begin(), effective->end(),
                                        [](const std::string& t) { return t != "stdio"; });
      if (has_stdio && kHttpOnlySteps.count(action))
        c.fail(p + "/" + action, action + " is an HTTP step: the case cannot list \"stdio\"");
      if (has_http && kStdioOnlySteps.count(action))
        c.fail(p + "/" + action,
               action + " is a stdio step: the case can list only \"stdio\" as its transport");
    }
    auto allowed = actions.at(action);
    allowed.push_back(action);
    allowed.push_back("transports");
    c.only_keys(step, allowed, p);
    const auto& arg = step[action];
    const auto ap = p + "/" + action;

    auto empty_object = [&] {
      if (!arg.is_object() || !arg.empty()) c.fail(ap, "takes {}");
    };
    auto timeout = [&](const std::string& key) {
      if (step.contains(key)) check_timeout(c, step[key], p + "/" + key, timeouts);
    };
    auto required_check = [&](const std::string& key) {
      add_check(c, checks, parse_check(c, c.member(step, key, p), p + "/" + key, refs),
                p + "/" + key + "/id");
    };
    auto known_label = [&] {
      const auto label = c.nonempty_string(arg, ap);
      if (!labels.count(label)) c.fail(ap, "no earlier send has the label \"" + label + "\"");
    };
    auto route = [&] {
      if (!step.contains("on")) return;
      const auto on = c.nonempty_string(step["on"], p + "/on");
      if (on == "get") return;
      if (on.rfind("post:", 0) != 0)
        c.fail(p + "/on", "unknown route \"" + on + "\" (known: \"get\", \"post:NAME\")");
      const auto name = on.substr(5);
      if (!captured.count(name))
        c.fail(p + "/on", "nothing is captured as \"" + name + "\" before this step");
    };

    if (action == "handshake") {
      empty_object();
      add_check(c, checks, handshake_check(), ap);
      captured.insert("initialize");
    } else if (action == "expect") {
      c.object(arg, ap);
      check_value(c, arg, ap, true, captured, false);
      timeout("within");
      required_check("check");
      if (step.contains("as")) captured.insert(c.nonempty_string(step["as"], p + "/as"));
    } else if (action == "send") {
      if (arg.is_array()) {
        if (arg.empty()) c.fail(ap, "must not be an empty list of frames");
        for (std::size_t f = 0; f < arg.size(); ++f) {
          c.object(arg[f], ap + "/" + std::to_string(f));
        }
      } else {
        c.object(arg, ap);
      }
      check_value(c, arg, ap, false, captured, step.contains("repeat"));
      if (step.contains("repeat")) c.count(step["repeat"], p + "/repeat", 1);
      if (step.contains("chunk")) c.count(step["chunk"], p + "/chunk", 1);
      if (step.contains("write")) {
        const auto mode = c.string(step["write"], p + "/write");
        if (mode != "lines" && mode != "coalesced" && mode != "chopped") {
          c.fail(p + "/write",
                 "unknown write mode \"" + mode + "\" (known: lines, coalesced, chopped)");
        }
      }
      if (step.contains("label")) {
        const auto label = c.nonempty_string(step["label"], p + "/label");
        if (!labels.insert(label).second)
          c.fail(p + "/label", "label \"" + label + "\" is used twice");
      }
      if (step.contains("sse")) check_sse(c, step["sse"], p + "/sse");
      route();
    } else if (action == "send_raw") {
      c.nonempty_string(arg, ap);
      if (step.contains("chunk")) c.count(step["chunk"], p + "/chunk", 1);
      route();
    } else if (action == "respond") {
      const auto name = c.nonempty_string(arg, ap);
      if (!captured.count(name))
        c.fail(ap, "nothing is captured as \"" + name + "\" before this step");
      const int answers = static_cast<int>(step.contains("result")) +
                          static_cast<int>(step.contains("error")) +
                          static_cast<int>(step.contains("default"));
      if (answers != 1)
        c.fail(p, "respond needs exactly one of \"result\", \"error\", \"default\"");
      if (step.contains("default") && step["default"] != Json(true))
        c.fail(p + "/default", "takes true");
      if (step.contains("result"))
        check_value(c, step["result"], p + "/result", false, captured, false);
      if (step.contains("error")) {
        c.object(step["error"], p + "/error");
        check_value(c, step["error"], p + "/error", false, captured, false);
      }
      route();
    } else if (action == "expect_response") {
      known_label();
      timeout("within");
      timeout("late_within");
      required_check("check");
    } else if (action == "expect_error") {
      known_label();
      timeout("within");
      const auto& code = c.member(step, "code", p);
      if (!code.is_number_integer()) c.fail(p + "/code", "must be an integer error code");
      required_check("check");
    } else if (action == "expect_no_response") {
      known_label();
      timeout("window");
      if (step.contains("forbid")) {
        const auto forbid = c.string(step["forbid"], p + "/forbid");
        if (forbid != "success" && forbid != "any") {
          c.fail(p + "/forbid", "must be \"success\" or \"any\"");
        }
      }
      required_check("check");
      if (step.contains("info_check")) required_check("info_check");
    } else if (action == "expect_none") {
      c.object(arg, ap);
      check_value(c, arg, ap, true, captured, false);
      timeout("window");
      required_check("check");
    } else if (action == "observe_client_pings") {
      empty_object();
      timeout("window");
      required_check("check");
    } else if (action == "await_get_stream") {
      empty_object();
      timeout("within");
    } else if (action == "fail_next_post") {
      c.object(arg, ap);
      check_value(c, arg, ap, true, captured, false);
      const auto& with = c.member(step, "with", p);
      if (with != Json(500) && with != Json(404) && with != Json("reset"))
        c.fail(p + "/with", "must be 500, 404 or \"reset\"");
    } else if (action == "expect_post") {
      known_label();
      const auto& pattern = c.object(c.member(step, "http", p), p + "/http");
      check_value(c, pattern, p + "/http", true, captured, false);
      timeout("within");
      required_check("check");
    } else if (action == "pause") {
      check_timeout(c, arg, ap, timeouts);
    } else if (action == "stderr") {
      c.string(arg, ap);
    } else if (action == "stderr_bytes") {
      c.count(arg, ap, 1);
    } else {
      empty_object();  // close_stdin, close_stdout, serve_defaults
      if (action == "serve_defaults" && i + 1 != script.size()) {
        c.fail(
            ap,
            "serve_defaults runs until the client closes the connection: it must be the last step");
      }
    }
  }
  close_step();
  return checks;
}

Scenario load_scenario(const std::filesystem::path& file, const std::string& id,
                       const Defaults& defaults, const SpecReferences& refs) {
  const Checker c(file.string());
  const auto root = parse_file(file);
  c.object(root, "");
  c.only_keys(root, kTopLevelKeys, "");

  Scenario s;
  s.id = id;
  s.file = file;
  s.title = c.nonempty_string(c.member(root, "title", ""), "/title");
  s.description = c.nonempty_string(c.member(root, "description", ""), "/description");
  s.catches = c.nonempty_string(c.member(root, "catches", ""), "/catches");

  const auto& transports = c.array(c.member(root, "transports", ""), "/transports");
  if (transports.empty()) c.fail("/transports", "must name at least one transport");
  for (std::size_t i = 0; i < transports.size(); ++i) {
    const auto p = "/transports/" + std::to_string(i);
    auto t = c.string(transports[i], p);
    const auto& known = known_transports();
    if (std::find(known.begin(), known.end(), t) == known.end()) {
      c.fail(p, "unknown transport \"" + t + "\" (known: " + join(known, ", ") + ")");
    }
    if (std::find(s.transports.begin(), s.transports.end(), t) != s.transports.end()) {
      c.fail(p, "transport \"" + t + "\" is listed twice");
    }
    s.transports.push_back(std::move(t));
  }

  if (root.contains("revisions")) {
    const auto& r = c.object(root["revisions"], "/revisions");
    c.only_keys(r, {"from", "until"}, "/revisions");
    auto revision = [&](const char* key, std::string& out) {
      if (!r.contains(key)) return;
      const auto p = std::string("/revisions/") + key;
      out = c.string(r[key], p);
      if (!revision_index(out)) {
        c.fail(p,
               "unknown revision \"" + out + "\" (known: " + join(known_revisions(), ", ") + ")");
      }
    };
    revision("from", s.revision_from);
    revision("until", s.revision_until);
    if (*revision_index(s.revision_from) > *revision_index(s.revision_until)) {
      c.fail("/revisions",
             "\"from\" " + s.revision_from + " is after \"until\" " + s.revision_until);
    }
  }

  s.driver_steps = c.member(root, "driver_steps", "");
  check_driver_steps(c, s.driver_steps, defaults.timeouts);

  if (root.contains("http")) {
    check_http_options(c, root["http"]);
    s.http = root["http"];
  }

  s.script = c.member(root, "script", "");
  s.script_checks =
      validate_script(s.script, file.string(), defaults.timeouts, &refs, &s.transports);

  if (root.contains("driver_checks")) {
    const auto& checks = c.array(root["driver_checks"], "/driver_checks");
    std::vector<CheckDef> all = s.script_checks;
    for (std::size_t i = 0; i < checks.size(); ++i) {
      const auto p = "/driver_checks/" + std::to_string(i);
      const auto& dc = c.object(checks[i], p);
      c.only_keys(dc, {"id", "level", "spec", "step", "expect"}, p);
      DriverCheck check;
      check.check = parse_check(c,
                                Json{{"id", c.member(dc, "id", p)},
                                     {"level", c.member(dc, "level", p)},
                                     {"spec", c.member(dc, "spec", p)}},
                                p, &refs);
      check.step = c.count(c.member(dc, "step", p), p + "/step", 0);
      if (check.step >= s.driver_steps.size()) {
        c.fail(p + "/step", "driver step " + std::to_string(check.step) +
                                " does not exist (there are " +
                                std::to_string(s.driver_steps.size()) + ")");
      }
      check.expect = c.member(dc, "expect", p);
      if (auto problem = check_pattern(check.expect)) {
        c.fail(p + "/expect" + problem->pointer, problem->reason);
      }
      add_check(c, all, check.check, p + "/id");
      s.driver_checks.push_back(std::move(check));
    }
  }

  if (root.contains("exclusive")) {
    if (!root["exclusive"].is_boolean()) c.fail("/exclusive", "must be true or false");
    s.exclusive = root["exclusive"].get<bool>();
  }
  if (root.contains("deadline_kill")) {
    const auto kill = c.string(root["deadline_kill"], "/deadline_kill");
    if (kill == "FAIL") {
      s.deadline_kill = Level::Must;
    } else if (kill == "INFO") {
      s.deadline_kill = Level::Info;
    } else {
      c.fail("/deadline_kill", "must be \"FAIL\" or \"INFO\"");
    }
  }
  return s;
}

std::vector<Scenario> load_catalogue(const std::filesystem::path& scenarios_dir,
                                     const Defaults& defaults, const SpecReferences& refs) {
  std::vector<std::pair<std::string, std::filesystem::path>> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(scenarios_dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    auto id =
        std::filesystem::relative(entry.path(), scenarios_dir).replace_extension().generic_string();
    files.emplace_back(std::move(id), entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Scenario> out;
  for (const auto& [id, path] : files) out.push_back(load_scenario(path, id, defaults, refs));
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

TimeoutTable scaled_timeouts(const Defaults& defaults, double multiplier) {
  TimeoutTable out;
  for (const auto& [name, ms] : defaults.timeouts) out[name] = ms * multiplier;
  return out;
}

bool CheckDef::applies_to(std::string_view transport) const {
  return transports.empty() || std::find(transports.begin(), transports.end(), transport) !=
                                   transports.end();
}

Json resolve_script(const Scenario& scenario, const Defaults& defaults, const RunSettings& run) {
  Json checks = Json::array();
  for (const auto& check : scenario.script_checks) {
    if (check.applies_to(run.transport)) checks.push_back(to_json(check));
  }
  // Steps limited to other transports are left out; the rest lose their filter.
  Json script = Json::array();
  for (const auto& step : scenario.script) {
    if (step.contains("transports")) {
      const auto& only = step["transports"];
      if (std::find(only.begin(), only.end(), Json(run.transport)) == only.end()) continue;
      Json kept = step;
      kept.erase("transports");
      script.push_back(std::move(kept));
    } else {
      script.push_back(step);
    }
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
  for (auto& step : steps) {
    if (step.value("op", "") == "idle" && step.contains("timeout")) {
      const auto name = step["timeout"].get<std::string>();
      const auto it = scaled.find(name);
      if (it == scaled.end()) {
        throw FixtureError(scenario.file.string(), "/driver_steps",
                           "unknown timeout \"" + name + "\"");
      }
      step.erase("timeout");
      step["ms"] = static_cast<std::int64_t>(std::llround(it->second));
    }
  }
  return steps;
}

void validate_resolved_script(const Json& resolved, const std::string& file) {
  const Checker c(file);
  c.object(resolved, "");
  if (resolved.value("format", "") != "mcp-ping-script/1") {
    c.fail("/format", "must be \"mcp-ping-script/1\"");
  }
  c.nonempty_string(c.member(resolved, "scenario", ""), "/scenario");
  const auto transport = c.string(c.member(resolved, "transport", ""), "/transport");
  const auto revision = c.string(c.member(resolved, "revision", ""), "/revision");
  if (!revision_index(revision)) c.fail("/revision", "unknown revision \"" + revision + "\"");
  TimeoutTable timeouts;
  const auto& table = c.object(c.member(resolved, "timeouts", ""), "/timeouts");
  for (const auto& [name, ms] : table.items()) {
    if (!ms.is_number() || ms.get<double>() <= 0) {
      c.fail("/timeouts/" + name, "must be a positive number of milliseconds");
    }
    timeouts[name] = ms.get<double>();
  }
  for (const auto& name : required_timeouts()) {
    if (!timeouts.count(name)) c.fail("/timeouts/" + name, "required");
  }
  c.count(c.member(resolved, "line_cap_bytes", ""), "/line_cap_bytes", 1024);
  const auto& server = c.object(c.member(resolved, "server", ""), "/server");
  c.object(c.member(server, "server_info", "/server"), "/server/server_info");
  c.object(c.member(server, "capabilities", "/server"), "/server/capabilities");
  c.array(c.member(server, "tools", "/server"), "/server/tools");
  if (resolved.contains("http")) check_http_options(c, resolved["http"]);
  const std::vector<std::string> transports = {transport};
  validate_script(c.member(resolved, "script", ""), file, timeouts, nullptr, &transports);
}

}  // namespace mcpping
