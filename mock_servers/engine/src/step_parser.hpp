// Reads one script step into its typed struct. Typed getters validate as they read and fail
// with the file, the JSON pointer and the reason (docs/scenario-format.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "core/fixture_reader.hpp"
#include "core/scenario.hpp"
#include "engine/channel.hpp"

namespace mcpping {

using Json = nlohmann::json;

// What the script's steps so far have declared.
struct ScriptState {
  const FixtureReader& reader;
  const TimeoutTable& timeouts;
  const SpecReferences* refs = nullptr;  // when set, spec keys must exist here
  std::size_t script_size = 0;
  std::set<std::string> captured;
  std::set<std::string> labels;
  std::set<std::string> answer_labels;  // labels of respond steps: not requests to wait on
  std::vector<CheckDef> checks;         // in script order
};

class StepParser {
 public:
  StepParser(ScriptState& state, const Json& step, std::size_t index, std::string_view action);

  [[noreturn]] void fail(const std::string& pointer, const std::string& reason) const {
    state_.reader.fail(pointer, reason);
  }
  const FixtureReader& reader() const { return state_.reader; }
  const Json& step() const { return step_; }
  bool is_last() const { return index_ + 1 == state_.script_size; }
  const std::string& pointer() const { return pointer_; }  // "/script/N"
  std::string pointer(const std::string& key) const { return pointer_ + "/" + key; }
  bool has(const std::string& key) const { return step_.contains(key); }
  // A member the step must carry ("required").
  const Json& member(const std::string& key) const;
  // A non-empty string under `key`, when the step has one.
  std::optional<std::string> name(const std::string& key) const;
  bool boolean(const Json& value, const std::string& pointer) const;

  // The action's value and its pointer ("/script/N/ACTION").
  const Json& arg() const { return step_[action_]; }
  const std::string& arg_pointer() const { return arg_pointer_; }
  // The action's value must be {}.
  void empty_arg() const;
  const Json& object_arg() const { return reader().object(arg(), arg_pointer_); }
  std::string string_arg() const { return reader().string(arg(), arg_pointer_); }

  // The timeout named by `key`, or `fallback` when the step has none; an unknown name fails.
  std::string timeout(const std::string& key, const std::string& fallback) const;
  // A timeout name at `pointer`.
  std::string timeout_name(const Json& value, const std::string& pointer) const;

  // The check under `key` (required): parsed, refused when its id is taken, declared.
  // `premise`: what must have happened for the step to record it (CheckDef::premise), when
  // the step kind has one.
  CheckDef check(const std::string& key, const std::string& premise = {});
  std::optional<CheckDef> optional_check(const std::string& key);
  // A check of the mock server's own (the handshake's), declared at the action's pointer.
  void declare_check(CheckDef check);

  // The action's value as the label of an earlier send.
  std::string known_label() const;
  // The step's label under `key`, unique in the script. `answer`: it labels a response the
  // script sends (respond), which no step may wait on as a request.
  std::optional<std::string> define_label(const std::string& key, bool answer = false);
  // Later steps may refer to `name`.
  void capture(const std::string& name) { state_.captured.insert(name); }
  // A name an earlier step captured, at `pointer`.
  std::string captured(const Json& value, const std::string& pointer) const;

  // A pattern, checked for its `$` objects and its references.
  Json pattern(const Json& value, const std::string& pointer) const;
  // A template, checked the same way; `with_index` allows "${i}".
  Json template_value(const Json& value, const std::string& pointer, bool with_index) const;

  // "on": "" (the host's default), "get" or "post:NAME" of a captured request.
  std::string route() const;
  // The action's value as "post:NAME" of a captured request or "get" (the GET listening
  // stream).
  std::string stream_arg() const;
  // "sse": the framing of each server-sent event.
  SseFraming sse() const;
  // A count under `key` of at least `min`, or `fallback` when absent.
  std::uint64_t count(const std::string& key, std::uint64_t min, std::uint64_t fallback) const;
  // A string under `key` among `allowed`, or `fallback` when absent; `reason(got)` otherwise.
  std::string one_of(const std::string& key, const std::vector<std::string>& allowed,
                     const std::string& fallback,
                     std::string (*reason)(const std::string& got)) const;

 private:
  void add_check(CheckDef check, const std::string& pointer);
  // "post:NAME" at `at`, NAME captured by an earlier step.
  std::string post_route(const std::string& on, const std::string& at) const;
  void check_refs(const Json& value, const std::string& pointer, bool with_index) const;

  ScriptState& state_;
  const Json& step_;
  std::size_t index_;
  std::string action_;
  std::string pointer_;
  std::string arg_pointer_;
};

}  // namespace mcpping
