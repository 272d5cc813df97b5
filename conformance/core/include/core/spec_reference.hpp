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
};

using SpecReferences = std::map<std::string, SpecReference>;

// Throws FixtureError naming the field.
SpecReferences load_spec_references(const std::filesystem::path& file);

// Keys to references; an unknown key yields a reference that says so.
std::vector<SpecReference> resolve_spec(const std::vector<std::string>& keys,
                                        const SpecReferences& refs);

}  // namespace mcpping
