// The JSON patterns client messages are matched against (core/pattern.hpp), the templates
// frames are built from (engine/template.hpp) and the id matching that ties a client's
// response to a server frame (engine/id_match.hpp). The input is one JSON document:
//
//   {"pattern": P, "value": V, "captures": {NAME: VALUE...}, "template": T, "ids": [ID...]}
//
// Oracles: a pattern check_pattern() accepts is matched without an exception, a mismatch
// says why, {"$not": P} matches exactly what P does not, a literal value matches itself and
// a captured one its $ref; a well-formed $repeat stands for at most kMaxRepeatBytes; a
// template check_template() accepts is instantiated or refused with a TemplateError (never
// another exception), a literal one unchanged; the id index offers every id match_id() ties.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check.hpp"
#include "core/pattern.hpp"
#include "id_match.hpp"
#include "json_mutator.hpp"
#include "template.hpp"

namespace {

using mcpping::Captures;
using mcpping::Json;

// A value with no pattern syntax in it: no "$" key, no "${" in a string.
bool literal(const Json& value) {
  if (value.is_string()) return value.get_ref<const std::string&>().find("${") == std::string::npos;
  if (value.is_object()) {
    for (const auto& [key, sub] : value.items()) {
      if ((!key.empty() && key[0] == '$') || !literal(sub)) return false;
    }
    return true;
  }
  if (value.is_array()) {
    for (const auto& sub : value)
      if (!literal(sub)) return false;
  }
  return true;
}

// Every {"$repeat": ARG} check_repeat() accepts stands for a bounded string.
void check_repeats(const Json& value) {
  if (value.is_object() && value.size() == 1 && value.contains("$repeat") &&
      !mcpping::check_repeat(value["$repeat"])) {
    const auto& arg = value["$repeat"];
    const auto total = static_cast<unsigned __int128>(arg[0].get_ref<const std::string&>().size()) *
                       arg[1].get<std::uint64_t>();
    FUZZ_CHECK(total <= mcpping::kMaxRepeatBytes, "check_repeat accepted " + arg.dump());
    FUZZ_CHECK(mcpping::repeated_text(value)->size() == total, arg.dump());
  }
  if (value.is_structured()) {
    for (const auto& sub : value) check_repeats(sub);
  }
}

void check_pattern_matching(const Json& pattern, const Json& value, const Captures& captures) {
  if (mcpping::check_pattern(pattern)) return;  // refused when the fixture loads
  std::string why;
  const bool matched = mcpping::matches(pattern, value, captures, &why);
  FUZZ_CHECK(matched || !why.empty(), "a mismatch without a reason: " + pattern.dump());
  FUZZ_CHECK(mcpping::matches(Json{{"$not", pattern}}, value, captures) == !matched,
             "$not disagrees: " + pattern.dump());
}

void check_template(const Json& tmpl, const Captures& captures) {
  if (mcpping::check_template(tmpl)) return;  // refused when the fixture loads
  for (const auto index : {std::optional<std::size_t>{}, std::optional<std::size_t>{3}}) {
    try {
      const auto out = mcpping::instantiate(tmpl, captures, index);
      if (literal(tmpl)) FUZZ_CHECK(mcpping::same_json(out, tmpl), tmpl.dump());
    } catch (const mcpping::TemplateError&) {
      // A reference the captures cannot satisfy: the step reports it.
    }
  }
}

void check_ids(const Json& ids) {
  if (!ids.is_array()) return;
  mcpping::IdIndex index;
  for (std::size_t i = 0; i < ids.size(); ++i) index.add(ids[i], i);
  for (const auto& got : ids) {
    const auto offered = index.candidates(got);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (mcpping::match_id(ids[i], got) == mcpping::IdMatch::None) continue;
      FUZZ_CHECK(std::find(offered.begin(), offered.end(), i) != offered.end(),
                 "match_id ties " + ids[i].dump() + " to " + got.dump() +
                     " but the index does not offer it");
    }
  }
}

const std::vector<std::string_view> kWords = {
    "$any",    "$absent", "$type",  "$not",     "$any_of",  "$ref",    "$contains",
    "$repeat", "$text",   "${i}",   "${m.id}",  "m.id",     "m",       "m.params.0",
    "string",  "integer", "number", "object",   "array",    "boolean", "null",
    "jsonrpc", "2.0",     "id",     "method",   "ping",     "params",  "result",
    "error",   "pattern", "value",  "captures", "template", "ids"};

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return mcpping::fuzz::mutate_json(data, size, max_size, seed, kWords);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input =
      Json::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (!input.is_object()) return 0;
  const Json pattern = input.value("pattern", Json());
  const Json value = input.value("value", Json());
  const Json tmpl = input.value("template", Json());
  Captures captures;
  if (input.contains("captures") && input["captures"].is_object()) {
    for (const auto& [name, captured] : input["captures"].items()) captures[name] = captured;
  }

  check_repeats(pattern);
  check_repeats(value);
  check_pattern_matching(pattern, value, captures);
  if (literal(value)) {
    FUZZ_CHECK(mcpping::matches(value, value, captures), "a literal does not match itself");
  }
  Captures with_value = captures;
  with_value["fuzz"] = value;
  FUZZ_CHECK(mcpping::matches(Json{{"$ref", "fuzz"}}, value, with_value),
             "a captured value does not match its $ref");
  check_template(tmpl, captures);
  check_ids(input.value("ids", Json()));
  return 0;
}
