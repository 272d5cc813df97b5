#include "core/check.hpp"

#include <algorithm>
#include <array>

#include "core/check_registry.hpp"
#include "core/text.hpp"
#include "spelling_table.hpp"

namespace mcpping {

namespace {

constexpr std::array<std::string_view, 3> kCheckKindNames = {"subject", "fate", "collateral"};

// Prefixes of the ids the suite records on its own, now or in a later version.
constexpr std::array<std::string_view, 6> kReservedPrefixes = {
    "transport:", "http:", "modern:", "driver:", "harness:", "wire:"};

std::vector<std::string> parse_given(const FixtureReader& reader, const Json& given,
                                     const std::string& pointer) {
  if (given.is_string()) return {reader.nonempty_string(given, pointer)};
  const auto& list = reader.array(given, pointer);
  if (list.empty()) reader.fail(pointer, "must name at least one label");
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < list.size(); ++i)
    labels.push_back(reader.nonempty_string(list[i], pointer + "/" + std::to_string(i)));
  return labels;
}

}  // namespace

std::string_view to_string(CheckKind kind) { return spelling_table::row_of(kCheckKindNames, kind); }

std::optional<CheckKind> parse_check_kind(std::string_view text) {
  return spelling_table::find<CheckKind>(kCheckKindNames, text);
}

bool CheckDef::applies_to(std::string_view transport) const {
  return transports.empty() ||
         std::find(transports.begin(), transports.end(), transport) != transports.end();
}

Json to_json(const CheckDef& check) {
  Json out{{"id", check.id}, {"level", to_string(check.level)}, {"spec", check.spec}};
  if (check.kind != CheckKind::Subject) out["kind"] = to_string(check.kind);
  return out;
}

CheckDef parse_check(const FixtureReader& reader, const Json& value, const std::string& pointer,
                     const SpecReferences* refs) {
  reader.object(value, pointer);
  reader.only_keys(value, {"id", "level", "spec", "given"}, pointer);
  CheckDef check;
  check.id = reader.nonempty_string(reader.member(value, "id", pointer), pointer + "/id");
  if (is_reserved_check_id(check.id)) {
    reader.fail(pointer + "/id", "\"" + check.id + "\" is reserved for the suite's own checks");
  }
  const auto level_text = reader.string(reader.member(value, "level", pointer), pointer + "/level");
  const auto level = parse_level(level_text);
  if (!level) {
    reader.fail(pointer + "/level",
                "unknown level \"" + level_text + "\" (known: MUST, SHOULD, MAY, INFO)");
  }
  check.level = *level;
  const auto& spec = reader.array(reader.member(value, "spec", pointer), pointer + "/spec");
  if (spec.empty()) reader.fail(pointer + "/spec", "must name at least one spec reference");
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const auto sp = pointer + "/spec/" + std::to_string(i);
    auto key = reader.nonempty_string(spec[i], sp);
    if (refs && !refs->count(key)) reader.fail(sp, "unknown spec reference \"" + key + "\"");
    check.spec.push_back(std::move(key));
  }
  if (value.contains("given")) {
    check.given = parse_given(reader, value["given"], pointer + "/given");
    check.premise = given_premise(check.given);
  }
  return check;
}

bool is_reserved_check_id(std::string_view id) {
  return is_builtin_check(id) ||
         std::any_of(kReservedPrefixes.begin(), kReservedPrefixes.end(),
                     [&](std::string_view prefix) { return id.rfind(prefix, 0) == 0; });
}

std::string given_premise(const std::vector<std::string>& labels) {
  std::vector<std::string> quoted;
  for (const auto& label : labels) quoted.push_back("\"" + label + "\"");
  return "the server sent " + join(quoted, " and ");
}

}  // namespace mcpping
