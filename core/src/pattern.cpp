#include "core/pattern.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>

namespace mcpping {

namespace {

// "/key" as a JSON pointer's last token ('~' and '/' escaped).
std::string pointer_token(const std::string& key) {
  return (Json::json_pointer() / key).to_string();
}

bool same_integer(const Json& a, const Json& b) {
  const bool a_neg = a.is_number_integer() && !a.is_number_unsigned() && a.get<std::int64_t>() < 0;
  const bool b_neg = b.is_number_integer() && !b.is_number_unsigned() && b.get<std::int64_t>() < 0;
  if (a_neg != b_neg) return false;
  if (a_neg) return a.get<std::int64_t>() == b.get<std::int64_t>();
  return a.get<std::uint64_t>() == b.get<std::uint64_t>();
}

bool fail(std::string* why, const std::string& pointer, const std::string& reason) {
  if (why) *why = (pointer.empty() ? std::string("/") : pointer) + ": " + reason;
  return false;
}

bool is_special(const Json& pattern) {
  return pattern.is_object() && pattern.size() == 1 && !pattern.begin().key().empty() &&
         pattern.begin().key()[0] == '$';
}

// The type names "$type" knows, each with the test of a value it stands for.
constexpr std::pair<std::string_view, bool (Json::*)() const noexcept> kTypes[] = {
    {"string", &Json::is_string}, {"integer", &Json::is_number_integer},
    {"number", &Json::is_number}, {"object", &Json::is_object},
    {"array", &Json::is_array},   {"boolean", &Json::is_boolean},
    {"null", &Json::is_null}};

const auto* find_type(const Json& name) {
  return std::find_if(std::begin(kTypes), std::end(kTypes), [&](const auto& type) {
    return name.is_string() && type.first == name.get_ref<const std::string&>();
  });
}

bool match_at(const Json& pattern, const Json& value, const Captures& captures,
              const std::string& pointer, std::string* why);

bool match_type(const Json& arg, const Json& value, const std::string& pointer, std::string* why) {
  // One type name, or a list of them: any of them matches.
  const auto names = arg.is_array() ? arg : Json::array({arg});
  std::string wanted;
  for (const auto& name : names) {
    const auto* type = find_type(name);
    if (type != std::end(kTypes) && (value.*(type->second))()) return true;
    wanted += (wanted.empty() ? "" : " or ") + name.get<std::string>();
  }
  return fail(why, pointer,
              "expected type " + wanted + ", got " + std::string(to_string(json_kind(value))) +
                  " " + value.dump());
}

bool match_contains(const Json& arg, const Json& value, const std::string& pointer,
                    std::string* why) {
  const auto& needle = arg.get_ref<const std::string&>();
  if (value.is_string() && value.get_ref<const std::string&>().find(needle) != std::string::npos)
    return true;
  return fail(why, pointer,
              "expected a string containing \"" + needle + "\", got " +
                  value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

bool match_repeat(const Json& pattern, const Json& value, const std::string& pointer,
                  std::string* why) {
  const auto& arg = pattern.begin().value();
  const auto text = repeated_text(pattern);
  if (text && value.is_string() && value.get_ref<const std::string&>() == *text) return true;
  return fail(
      why, pointer,
      "expected " + arg[0].dump() + " written " + arg[1].dump() + " times, got " +
          (value.is_string() ? "a string of " + std::to_string(value.size()) + " bytes that differs"
                             : value.dump()));
}

bool match_ref(const std::string& ref, const Json& value, const Captures& captures,
               const std::string& pointer, std::string* why) {
  const auto expected = resolve_ref(ref, captures);
  if (!expected) return fail(why, pointer, "${" + ref + "} is not captured");
  if (same_json(*expected, value)) return true;
  return fail(why, pointer, "expected " + expected->dump() + " (" + ref + "), got " + value.dump());
}

// A {"$operator": argument} pattern; nullopt when the key names no operator (then it is an
// object pattern with that key).
std::optional<bool> match_operator(const Json& pattern, const Json& value, const Captures& captures,
                                   const std::string& pointer, std::string* why) {
  const auto& key = pattern.begin().key();
  const auto& arg = pattern.begin().value();
  if (key == "$any") return true;
  if (key == "$absent") return fail(why, pointer, "present, expected absent");
  if (key == "$type") return match_type(arg, value, pointer, why);
  if (key == "$any_of") {
    for (const auto& alternative : arg) {
      if (match_at(alternative, value, captures, pointer, nullptr)) return true;
    }
    return fail(why, pointer, "expected one of " + arg.dump() + ", got " + value.dump());
  }
  if (key == "$not") {
    if (!match_at(arg, value, captures, pointer, nullptr)) return true;
    return fail(why, pointer, "expected anything but " + arg.dump() + ", got " + value.dump());
  }
  if (key == "$contains") return match_contains(arg, value, pointer, why);
  if (key == "$repeat") return match_repeat(pattern, value, pointer, why);
  if (key == "$ref") return match_ref(arg.get<std::string>(), value, captures, pointer, why);
  return std::nullopt;
}

// A string with "${ref}" in it; nullopt for a plain string.
std::optional<bool> match_template(const std::string& text, const Json& value,
                                   const Captures& captures, const std::string& pointer,
                                   std::string* why) {
  if (auto ref = whole_ref(text)) return match_ref(*ref, value, captures, pointer, why);
  if (text.find("${") == std::string::npos) return std::nullopt;
  std::optional<std::string> missing;
  const auto expected = replace_refs(text, [&](std::string_view ref) {
    const auto found = resolve_ref(ref, captures);
    if (!found && !missing) missing = std::string(ref);
    return found ? value_text(*found) : std::string();
  });
  if (missing) return fail(why, pointer, "${" + *missing + "} is not captured");
  if (value.is_string() && value.get_ref<const std::string&>() == expected) return true;
  return fail(why, pointer, "expected \"" + expected + "\", got " + value.dump());
}

// {"$absent": true}, or an $any_of offering it ("params absent or an object").
bool allows_absence(const Json& pattern) {
  bool absent_wanted = is_special(pattern) && pattern.begin().key() == "$absent";
  if (is_special(pattern) && pattern.begin().key() == "$any_of" && pattern.begin()->is_array()) {
    for (const auto& option : *pattern.begin())
      absent_wanted = absent_wanted || (is_special(option) && option.begin().key() == "$absent");
  }
  return absent_wanted;
}

bool match_object(const Json& pattern, const Json& value, const Captures& captures,
                  const std::string& pointer, std::string* why) {
  if (!value.is_object()) return fail(why, pointer, "expected an object, got " + value.dump());
  for (const auto& [key, sub] : pattern.items()) {
    const auto sub_pointer = pointer + pointer_token(key);
    const auto it = value.find(key);
    if (it == value.end()) {
      if (allows_absence(sub)) continue;
      return fail(why, sub_pointer, "missing");
    }
    if (!match_at(sub, *it, captures, sub_pointer, why)) return false;
  }
  return true;
}

bool match_array(const Json& pattern, const Json& value, const Captures& captures,
                 const std::string& pointer, std::string* why) {
  if (!value.is_array() || value.size() != pattern.size()) {
    return fail(why, pointer,
                "expected an array of " + std::to_string(pattern.size()) + ", got " + value.dump());
  }
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (!match_at(pattern[i], value[i], captures, pointer + "/" + std::to_string(i), why)) {
      return false;
    }
  }
  return true;
}

bool match_at(const Json& pattern, const Json& value, const Captures& captures,
              const std::string& pointer, std::string* why) {
  if (is_special(pattern)) {
    if (auto matched = match_operator(pattern, value, captures, pointer, why)) return *matched;
  }
  if (pattern.is_string()) {
    const auto& text = pattern.get_ref<const std::string&>();
    if (auto matched = match_template(text, value, captures, pointer, why)) return *matched;
  }
  if (pattern.is_object()) return match_object(pattern, value, captures, pointer, why);
  if (pattern.is_array()) return match_array(pattern, value, captures, pointer, why);
  if (same_json(pattern, value)) return true;
  return fail(why, pointer, "expected " + pattern.dump() + ", got " + value.dump());
}

void collect(const Json& value, const std::string& pointer, std::vector<RefUse>& out) {
  if (value.is_string()) {
    replace_refs(value.get_ref<const std::string&>(), [&](std::string_view ref) {
      out.push_back({pointer, std::string(ref)});
      return std::string();
    });
  } else if (value.is_object()) {
    if (is_special(value) && (value.begin().key() == "$ref" || value.begin().key() == "$text") &&
        value.begin().value().is_string()) {
      out.push_back(
          {pointer + "/" + value.begin().key(), value.begin().value().get<std::string>()});
      return;
    }
    for (const auto& [key, sub] : value.items()) {
      collect(sub, pointer + pointer_token(key), out);
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      collect(value[i], pointer + "/" + std::to_string(i), out);
    }
  }
}

// `problem` of a part of a pattern, as a problem of the whole: its pointer behind `prefix`.
std::optional<ValueProblem> within_pattern(const std::string& prefix,
                                           std::optional<ValueProblem> problem) {
  if (problem) problem->pointer = prefix + problem->pointer;
  return problem;
}

bool known_type(const Json& name) { return find_type(name) != std::end(kTypes); }

// The argument of the operator `key` ("$type", ...); `here` is the operator's pointer.
std::optional<ValueProblem> check_operator(const std::string& key, const Json& arg,
                                           const std::string& here) {
  // A problem at the operator when `bad`.
  const auto unless = [&](bool bad, std::string reason) -> std::optional<ValueProblem> {
    if (bad) return ValueProblem{here, std::move(reason)};
    return std::nullopt;
  };
  if (key == "$any" || key == "$absent") return unless(arg != Json(true), key + " takes true");
  if (key == "$type") {
    const bool ok = arg.is_array() ? !arg.empty() && std::all_of(arg.begin(), arg.end(), known_type)
                                   : known_type(arg);
    return unless(!ok,
                  "$type takes one of string, integer, number, object, array, boolean, null, or a "
                  "non-empty list of them");
  }
  if (key == "$any_of") {
    if (!arg.is_array() || arg.empty())
      return ValueProblem{here, "$any_of takes a non-empty list of patterns"};
    for (std::size_t i = 0; i < arg.size(); ++i) {
      if (auto problem = within_pattern(here + "/" + std::to_string(i), check_pattern(arg[i])))
        return problem;
    }
    return std::nullopt;
  }
  if (key == "$not") return within_pattern(here, check_pattern(arg));
  if (key == "$ref") {
    return unless(!arg.is_string() || arg.get_ref<const std::string&>().empty(),
                  "$ref takes a \"name.path\" string");
  }
  if (key == "$contains") return unless(!arg.is_string(), "$contains takes a string");
  if (key == "$repeat") return within_pattern(here, check_repeat(arg));
  return ValueProblem{here, "unknown special key \"" + key +
                                "\" (known: $any, $absent, $type, $not, $any_of, $ref, "
                                "$contains, $repeat)"};
}

}  // namespace

JsonKind json_kind(const Json& value) {
  // In the order of Json::value_t's enumerators: null, object, array, string, boolean,
  // number_integer, number_unsigned, number_float, then binary and discarded, which never come
  // from text.
  constexpr JsonKind kKinds[] = {
      JsonKind::Null,    JsonKind::Object,  JsonKind::Array, JsonKind::String, JsonKind::Boolean,
      JsonKind::Integer, JsonKind::Integer, JsonKind::Float, JsonKind::Null,   JsonKind::Null};
  static_assert(static_cast<std::size_t>(Json::value_t::number_float) == 7 &&
                static_cast<std::size_t>(Json::value_t::discarded) + 1 == std::size(kKinds));
  return kKinds[static_cast<std::size_t>(value.type())];
}

std::string_view to_string(JsonKind kind) {
  constexpr std::string_view kNames[] = {"null",  "boolean", "string", "integer",
                                         "float", "object",  "array"};
  return kNames[static_cast<std::size_t>(kind)];
}

bool same_json(const Json& a, const Json& b) {
  const auto kind = json_kind(a);
  if (kind != json_kind(b)) return false;
  if (kind == JsonKind::Integer) return same_integer(a, b);
  if (!a.is_structured()) return a == b;
  if (a.size() != b.size()) return false;
  // Objects iterate in key order, so two with the same keys pair them up member by member.
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    if ((a.is_object() && i.key() != j.key()) || !same_json(*i, *j)) return false;
  }
  return true;
}

std::optional<std::string> whole_ref(std::string_view text) {
  if (text.size() < 4 || text.substr(0, 2) != "${" || text.back() != '}') return std::nullopt;
  const auto inner = text.substr(2, text.size() - 3);
  if (inner.empty() || inner.find_first_of("${}") != std::string_view::npos) return std::nullopt;
  return std::string(inner);
}

std::string ref_root(std::string_view ref) { return std::string(ref.substr(0, ref.find('.'))); }

std::optional<Json> resolve_ref(std::string_view ref, const Captures& captures) {
  const auto it = captures.find(ref_root(ref));
  if (it == captures.end()) return std::nullopt;
  const Json* current = &it->second;
  auto rest =
      ref.find('.') == std::string_view::npos ? std::string_view{} : ref.substr(ref.find('.') + 1);
  while (!rest.empty()) {
    const auto dot = rest.find('.');
    const auto member = std::string(rest.substr(0, dot));
    rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
    if (current->is_object()) {
      const auto found = current->find(member);
      if (found == current->end()) return std::nullopt;
      current = &*found;
    } else if (current->is_array() && !member.empty() &&
               std::all_of(member.begin(), member.end(),
                           [](char c) { return c >= '0' && c <= '9'; })) {
      // An index too large for size_t names nothing, as one past the end does.
      std::size_t index = 0;
      const auto parsed = std::from_chars(member.data(), member.data() + member.size(), index);
      if (parsed.ec != std::errc() || index >= current->size()) return std::nullopt;
      current = &(*current)[index];
    } else {
      return std::nullopt;
    }
  }
  return *current;
}

std::string replace_refs(std::string_view text,
                         const std::function<std::string(std::string_view)>& replace) {
  std::string out;
  for (std::size_t open; (open = text.find("${")) != std::string_view::npos;) {
    const auto close = text.find('}', open + 2);
    if (close == std::string_view::npos) break;
    out.append(text.substr(0, open));
    out += replace(text.substr(open + 2, close - open - 2));
    text.remove_prefix(close + 1);
  }
  return out.append(text);
}

std::string value_text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

bool matches(const Json& pattern, const Json& value, const Captures& captures, std::string* why) {
  return match_at(pattern, value, captures, "", why);
}

std::optional<ValueProblem> check_pattern(const Json& pattern) {
  if (pattern.is_object()) {
    const auto items = pattern.items();
    if (std::any_of(items.begin(), items.end(),
                    [](const auto& item) { return item.key().rfind('$', 0) == 0; })) {
      if (pattern.size() != 1) {
        return ValueProblem{"", "a \"$\" key must be the only key of its object"};
      }
      const auto& key = pattern.begin().key();
      return check_operator(key, pattern.begin().value(), pointer_token(key));
    }
    for (const auto& [key, sub] : pattern.items()) {
      if (auto problem = within_pattern(pointer_token(key), check_pattern(sub))) return problem;
    }
  } else if (pattern.is_array()) {
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      if (auto problem = within_pattern("/" + std::to_string(i), check_pattern(pattern[i])))
        return problem;
    }
  }
  return std::nullopt;
}

std::vector<RefUse> collect_refs(const Json& value) {
  std::vector<RefUse> out;
  collect(value, "", out);
  return out;
}

std::optional<ValueProblem> check_repeat(const Json& arg) {
  if (!arg.is_array() || arg.size() != 2 || !arg[0].is_string() ||
      arg[0].get_ref<const std::string&>().empty() || !arg[1].is_number_integer() ||
      arg[1].get<std::int64_t>() <= 0) {
    return ValueProblem{"", "$repeat takes [TEXT, N]: a non-empty string and a positive count"};
  }
  // Compared by division: the product of a long text and a huge count would wrap around.
  if (arg[1].get<std::uint64_t>() > kMaxRepeatBytes / arg[0].get_ref<const std::string&>().size()) {
    return ValueProblem{"", "$repeat makes at most " + std::to_string(kMaxRepeatBytes) + " bytes"};
  }
  return std::nullopt;
}

std::optional<std::string> repeated_text(const Json& value) {
  if (!value.is_object() || value.size() != 1 || !value.contains("$repeat") ||
      check_repeat(value["$repeat"])) {
    return std::nullopt;
  }
  const auto& unit = value["$repeat"][0].get_ref<const std::string&>();
  std::string out;
  const auto times = value["$repeat"][1].get<std::size_t>();
  out.reserve(unit.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += unit;
  return out;
}

Json expand_repeats(const Json& value) {
  if (auto text = repeated_text(value)) return *text;
  if (!value.is_structured()) return value;
  Json out = value;
  for (auto& item : out) item = expand_repeats(item);
  return out;
}

}  // namespace mcpping
