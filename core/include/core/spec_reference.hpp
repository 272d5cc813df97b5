// The spec sentences checks cite (fixtures/spec-references.json).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpping {

// Whom a sentence obliges: the client, the server, whichever party has the role it names
// (receiver, requestor, responder), nobody (it defines a term or a format), or the suite's
// own verdict rule (docs/verdicts.md). A check must cite at least one sentence that binds
// the client: a client, either or suite key.
enum class Binds { Client, Server, Either, Definition, Suite };

std::string_view to_string(Binds binds);
// "client", "server", ... as Binds; nullopt for another text.
std::optional<Binds> binds_from_string(std::string_view text);
bool binds_client(Binds binds);

struct SpecReference {
  std::string key;
  std::string url;
  std::string revision;
  std::string text;
  Binds binds = Binds::Definition;
};

using SpecReferences = std::map<std::string, SpecReference>;

// Throws FixtureError naming the field.
SpecReferences load_spec_references(const std::filesystem::path& file);

// Keys to references; an unknown key yields a reference that says so.
std::vector<SpecReference> resolve_spec(const std::vector<std::string>& keys,
                                        const SpecReferences& refs);

}  // namespace mcpping
