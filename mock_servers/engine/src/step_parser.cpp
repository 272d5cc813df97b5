#include "step_parser.hpp"

#include <algorithm>

#include "core/pattern.hpp"
#include "core/text.hpp"
#include "template.hpp"

namespace mcpping {

StepParser::StepParser(ScriptState& state, const Json& step, std::size_t index,
                       std::string_view action)
    : state_(state),
      step_(step),
      index_(index),
      action_(action),
      pointer_("/script/" + std::to_string(index)),
      arg_pointer_(pointer_ + "/" + action_) {}

const Json& StepParser::member(const std::string& key) const {
  return reader().member(step_, key, pointer_);
}

std::optional<std::string> StepParser::name(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return reader().nonempty_string(step_[key], pointer(key));
}

bool StepParser::boolean(const Json& value, const std::string& pointer) const {
  if (!value.is_boolean()) fail(pointer, "must be a boolean");
  return value.get<bool>();
}

void StepParser::empty_arg() const {
  if (!arg().is_object() || !arg().empty()) fail(arg_pointer_, "takes {}");
}

std::string StepParser::timeout_name(const Json& value, const std::string& pointer) const {
  auto name = reader().string(value, pointer);
  if (!state_.timeouts.count(name)) {
    std::vector<std::string> names;
    for (const auto& [known, ms] : state_.timeouts) names.push_back(known);
    fail(pointer, "unknown timeout \"" + name + "\" (known: " + join(names, ", ") + ")");
  }
  return name;
}

std::string StepParser::timeout(const std::string& key, const std::string& fallback) const {
  return has(key) ? timeout_name(step_[key], pointer(key)) : fallback;
}

void StepParser::add_check(CheckDef check, const std::string& pointer) {
  for (const auto& existing : state_.checks) {
    if (existing.id == check.id) fail(pointer, "duplicate check id \"" + check.id + "\"");
  }
  state_.checks.push_back(std::move(check));
}

CheckDef StepParser::check(const std::string& key, const std::string& premise) {
  auto check = parse_check(reader(), member(key), pointer(key), state_.refs);
  if (!premise.empty()) check.premise = premise;
  for (const auto& label : check.given) {
    if (!state_.labels.count(label))
      fail(pointer(key) + "/given",
           "no earlier step sends or arms under the label \"" + label + "\"");
  }
  add_check(check, pointer(key) + "/id");
  return check;
}

std::optional<CheckDef> StepParser::optional_check(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return check(key);
}

void StepParser::declare_check(CheckDef check) { add_check(std::move(check), arg_pointer_); }

std::string StepParser::known_label() const {
  auto label = reader().nonempty_string(arg(), arg_pointer_);
  if (!state_.labels.count(label))
    fail(arg_pointer_, "no earlier send has the label \"" + label + "\"");
  if (state_.answer_labels.count(label))
    fail(arg_pointer_, "\"" + label + "\" labels a respond step's answer, not a request");
  return label;
}

std::optional<std::string> StepParser::define_label(const std::string& key, bool answer) {
  auto label = name(key);
  if (label && !state_.labels.insert(*label).second)
    fail(pointer(key), "label \"" + *label + "\" is used twice");
  if (label && answer) state_.answer_labels.insert(*label);
  return label;
}

std::string StepParser::captured(const Json& value, const std::string& pointer) const {
  auto name = reader().nonempty_string(value, pointer);
  if (!state_.captured.count(name))
    fail(pointer, "nothing is captured as \"" + name + "\" before this step");
  return name;
}

void StepParser::check_refs(const Json& value, const std::string& pointer, bool with_index) const {
  const auto& captured = state_.captured;
  for (const auto& use : collect_refs(value)) {
    const auto root = ref_root(use.ref);
    if (with_index && use.ref == "i") continue;
    if (root.empty() || !captured.count(root)) {
      fail(pointer + use.pointer,
           "${" + use.ref + "} refers to \"" + root + "\", which no earlier step captures" +
               (captured.empty()
                    ? std::string()
                    : " (captured: " + join({captured.begin(), captured.end()}, ", ") + ")"));
    }
  }
}

Json StepParser::pattern(const Json& value, const std::string& pointer) const {
  if (auto problem = check_pattern(value)) fail(pointer + problem->pointer, problem->reason);
  check_refs(value, pointer, false);
  return value;
}

Json StepParser::template_value(const Json& value, const std::string& pointer,
                                bool with_index) const {
  if (auto problem = check_template(value)) fail(pointer + problem->pointer, problem->reason);
  check_refs(value, pointer, with_index);
  return value;
}

std::string StepParser::route() const {
  const auto on = name("on");
  if (!on || *on == "get") return on.value_or("");
  if (on->rfind("post:", 0) != 0)
    fail(pointer("on"), "unknown route \"" + *on + "\" (known: \"get\", \"post:NAME\")");
  return post_route(*on, pointer("on"));
}

std::string StepParser::stream_arg() const {
  auto on = reader().nonempty_string(arg(), arg_pointer_);
  if (on == "get") return on;
  if (on.rfind("post:", 0) != 0)
    fail(arg_pointer_,
         "must be \"get\" (the GET listening stream) or \"post:NAME\", the stream "
         "of the POST of the request captured as NAME");
  return post_route(on, arg_pointer_);
}

std::string StepParser::post_route(const std::string& on, const std::string& at) const {
  const auto name = on.substr(5);
  if (!state_.captured.count(name))
    fail(at, "nothing is captured as \"" + name + "\" before this step");
  return on;
}

SseFraming StepParser::sse() const {
  SseFraming sse;
  if (!has("sse")) return sse;
  const auto& c = reader();
  const auto p = pointer("sse");
  const auto& o = c.object(step_["sse"], p);
  c.only_keys(o, {"event", "id", "retry", "line_end", "multiline", "prefix", "field_space"}, p);
  // Field values must stay on their line: a line break would start another field.
  auto one_line = [&](const char* key) -> std::optional<std::string> {
    if (!o.contains(key)) return std::nullopt;
    auto text = c.string(o[key], p + "/" + key);
    if (text.find_first_of("\r\n") != std::string::npos)
      fail(p + "/" + key, "must not contain a line break");
    return text;
  };
  // null omits the `event:` line.
  if (o.contains("event")) sse.event = o["event"].is_null() ? std::nullopt : one_line("event");
  sse.id = one_line("id");
  if (o.contains("retry"))
    sse.retry = static_cast<std::int64_t>(c.count(o["retry"], p + "/retry", 0));
  if (o.contains("line_end")) {
    sse.line_end = c.string(o["line_end"], p + "/line_end");
    if (sse.line_end != "\n" && sse.line_end != "\r\n" && sse.line_end != "\r")
      fail(p + "/line_end", "must be \"\\n\", \"\\r\\n\" or \"\\r\"");
  }
  if (o.contains("field_space")) sse.field_space = boolean(o["field_space"], p + "/field_space");
  if (o.contains("multiline")) sse.multiline = boolean(o["multiline"], p + "/multiline");
  if (o.contains("prefix")) sse.prefix = c.string(o["prefix"], p + "/prefix");
  return sse;
}

std::uint64_t StepParser::count(const std::string& key, std::uint64_t min,
                                std::uint64_t fallback) const {
  return has(key) ? reader().count(step_[key], pointer(key), min) : fallback;
}

std::string StepParser::one_of(const std::string& key, const std::vector<std::string>& allowed,
                               const std::string& fallback,
                               std::string (*reason)(const std::string& got)) const {
  if (!has(key)) return fallback;
  auto value = reader().string(step_[key], pointer(key));
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    fail(pointer(key), reason(value));
  return value;
}

}  // namespace mcpping
