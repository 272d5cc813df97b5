// The spec sentences checks cite (fixtures/spec-references.json).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace mcpping {

struct SpecReference {
  std::string key;
  std::string url;
  std::string revision;
  std::string text;
  // Whom the sentence binds: "client", "server", "either" (whoever has the role it names:
  // receiver, requestor, responder), "definition" (defines a term or format, binds nobody)
  // or "suite" (the suite's own verdict rule). Empty when the key does not say.
  std::string binds;
};

// The values "binds" may take.
const std::vector<std::string>& known_binds();

using SpecReferences = std::map<std::string, SpecReference>;

// Throws FixtureError naming the field.
SpecReferences load_spec_references(const std::filesystem::path& file);

// Keys to references; an unknown key yields a reference that says so.
std::vector<SpecReference> resolve_spec(const std::vector<std::string>& keys,
                                        const SpecReferences& refs);

}  // namespace mcpping
