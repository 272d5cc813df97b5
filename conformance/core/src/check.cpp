#include "core/check.hpp"

#include <algorithm>

namespace mcpping {

bool CheckDef::applies_to(std::string_view transport) const {
  return transports.empty() ||
         std::find(transports.begin(), transports.end(), transport) != transports.end();
}

Json to_json(const CheckDef& check) {
  return Json{{"id", check.id}, {"level", to_string(check.level)}, {"spec", check.spec}};
}

CheckDef parse_check(const FixtureReader& reader, const Json& value, const std::string& pointer,
                     const SpecReferences* refs) {
  reader.object(value, pointer);
  reader.only_keys(value, {"id", "level", "spec"}, pointer);
  CheckDef check;
  check.id = reader.nonempty_string(reader.member(value, "id", pointer), pointer + "/id");
  if (is_reserved_check_id(check.id)) {
    reader.fail(pointer + "/id",
                "\"" + check.id + "\" is reserved for the mock server's own checks");
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
  return check;
}

CheckDef handshake_check() {
  return CheckDef{"handshake", Level::Must, {"lifecycle.init-first", "lifecycle.initialized"}};
}

bool is_reserved_check_id(std::string_view id) {
  return id == handshake_check().id || id.rfind("transport:", 0) == 0 ||
         id.rfind("modern:", 0) == 0;
}

}  // namespace mcpping
