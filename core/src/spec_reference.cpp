#include "core/spec_reference.hpp"

#include <array>

#include "core/fixture_reader.hpp"
#include "spelling_table.hpp"

namespace mcpping {

// In the order of the enumerators.
constexpr std::array<std::string_view, 5> kBindsNames = {"client", "server", "either", "definition",
                                                         "suite"};

std::string_view to_string(Binds binds) { return spelling_table::row_of(kBindsNames, binds); }

std::optional<Binds> binds_from_string(std::string_view text) {
  return spelling_table::find<Binds>(kBindsNames, text);
}

bool binds_client(Binds binds) {
  return binds == Binds::Client || binds == Binds::Either || binds == Binds::Suite;
}

SpecReferences load_spec_references(const std::filesystem::path& file) {
  const FixtureReader r(file.string());
  const auto root = parse_json_file(file);
  r.object(root, "");
  SpecReferences refs;
  for (const auto& [key, value] : root.items()) {
    const auto p = "/" + key;
    r.object(value, p);
    r.only_keys(value, {"url", "revision", "text", "binds"}, p);
    const auto binds = r.nonempty_string(r.member(value, "binds", p), p + "/binds");
    const auto known = binds_from_string(binds);
    if (!known)
      r.fail(p + "/binds",
             "\"" + binds + "\" is not one of client, server, either, definition, suite");
    refs[key] = SpecReference{key, r.nonempty_string(r.member(value, "url", p), p + "/url"),
                              r.nonempty_string(r.member(value, "revision", p), p + "/revision"),
                              r.nonempty_string(r.member(value, "text", p), p + "/text"), *known};
  }
  return refs;
}

std::vector<SpecReference> resolve_spec(const std::vector<std::string>& keys,
                                        const SpecReferences& refs) {
  std::vector<SpecReference> out;
  for (const auto& key : keys) {
    const auto it = refs.find(key);
    out.push_back(it != refs.end() ? it->second
                                   : SpecReference{key, "", "", "(unknown spec reference)"});
  }
  return out;
}

}  // namespace mcpping
