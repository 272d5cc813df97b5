#include "core/spec_reference.hpp"

#include <algorithm>

#include "core/fixture_reader.hpp"
#include "core/text.hpp"

namespace mcpping {

const std::vector<std::string>& known_binds() {
  static const std::vector<std::string> binds = {"client", "server", "either", "definition",
                                                 "suite"};
  return binds;
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
    std::string binds;
    if (value.contains("binds")) {
      binds = r.string(value["binds"], p + "/binds");
      const auto& known = known_binds();
      if (std::find(known.begin(), known.end(), binds) == known.end())
        r.fail(p + "/binds", "unknown value \"" + binds + "\" (known: " + join(known, ", ") + ")");
    }
    refs[key] =
        SpecReference{key, r.nonempty_string(r.member(value, "url", p), p + "/url"),
                      r.nonempty_string(r.member(value, "revision", p), p + "/revision"),
                      r.nonempty_string(r.member(value, "text", p), p + "/text"), std::move(binds)};
  }
  return refs;
}

std::vector<SpecReference> resolve_spec(const std::vector<std::string>& keys,
                                        const SpecReferences& refs) {
  std::vector<SpecReference> out;
  for (const auto& key : keys) {
    const auto it = refs.find(key);
    out.push_back(it != refs.end() ? it->second
                                   : SpecReference{key, "", "", "(unknown spec reference)", ""});
  }
  return out;
}

}  // namespace mcpping
