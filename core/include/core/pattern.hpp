// Type-strict JSON comparison, captured-value references and pattern matching
// (docs/scenario-format.md, "Values").
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mcpping {

using Json = nlohmann::json;

// Messages kept by `"as": NAME`, by name.
using Captures = std::map<std::string, Json>;

// JSON type categories as the scenario format sees them. nlohmann keeps signed and unsigned
// integers apart; both are Integer here.
enum class JsonKind { Null, Boolean, String, Integer, Float, Object, Array };
JsonKind json_kind(const Json& value);
std::string_view to_string(JsonKind kind);  // "null", "boolean", "string", "integer", "float", ...

// Equal in value and in type category, recursively. Unlike Json::operator==, 1 != 1.0.
bool same_json(const Json& a, const Json& b);

// "name.path" when `text` is exactly "${name.path}".
std::optional<std::string> whole_ref(std::string_view text);

// The capture name of a reference: "call" for "call.params.id".
std::string ref_root(std::string_view ref);

// Looks up "name.path": the capture `name`, then object members (or array indexes) along
// the dotted path. nullopt when any part is missing.
std::optional<Json> resolve_ref(std::string_view ref, const Captures& captures);

// `text` with each "${name.path}" in it replaced by `replace("name.path")`, in order; a "${"
// with no "}" after it stays as it is.
std::string replace_refs(std::string_view text,
                         const std::function<std::string(std::string_view)>& replace);

// The text of a value as it appears inside a longer string: strings without quotes, other
// values as compact JSON.
std::string value_text(const Json& value);

// Whether `value` matches `pattern`. On a mismatch, `why` (if given) says where and why.
bool matches(const Json& pattern, const Json& value, const Captures& captures,
             std::string* why = nullptr);

// A malformed pattern or template: the JSON pointer (relative to the value) and the reason.
struct ValueProblem {
  std::string pointer;
  std::string reason;
};

// Checks the special `$` objects of a pattern. nullopt when the pattern is well formed.
std::optional<ValueProblem> check_pattern(const Json& pattern);

// {"$repeat": [TEXT, N]}: TEXT written N times, so a fixture can hold a large value (a
// 96 KiB tool argument) in one line. A pattern matches exactly that string; in driver steps
// the runner writes it out (expand_repeats). At most kMaxRepeatBytes.
inline constexpr std::size_t kMaxRepeatBytes = 1024 * 1024;
std::optional<ValueProblem> check_repeat(const Json& arg);
// The string a well-formed {"$repeat": ...} stands for; nullopt for any other value.
std::optional<std::string> repeated_text(const Json& value);
// `value` with every {"$repeat": ...} inside it replaced by its string.
Json expand_repeats(const Json& value);

// A reference found in a pattern or template, with the relative pointer of its string.
struct RefUse {
  std::string pointer;
  std::string ref;
};
std::vector<RefUse> collect_refs(const Json& value);

}  // namespace mcpping
