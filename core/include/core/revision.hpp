// The MCP protocol revisions the suite knows: one table (core/src/revision.cpp) holds each
// revision's spelling and what a session at it has. Decisions that depend on the revision ask
// the table for a property; no other file spells a revision out (style/registry-literals).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpping {

// Oldest first: the enumerators compare in the order the revisions were published.
enum class Revision { V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28 };

struct RevisionTraits {
  Revision revision;
  std::string_view spelling;  // as on the wire: "protocolVersion", MCP-Protocol-Version
  // The initialize handshake and ping (InitializeRequest and PingRequest in its schema). A
  // revision without them is a modern one: per-request metadata and server/discover
  // ("Modern: protocol versions that convey version, identity, and capabilities as
  // per-request metadata").
  bool initialize;
  bool batches;  // JSON-RPC batches (JSONRPCBatchRequest and JSONRPCBatchResponse in its schema)
  // Over HTTP, the client sends MCP-Protocol-Version on every request after initialization
  // (the transports page from 2025-06-18 on; the modern binding on every request).
  bool protocol_version_header;
};

// Every revision, oldest first.
const std::vector<RevisionTraits>& all_revisions();
const RevisionTraits& traits_of(Revision revision);
std::string_view to_string(Revision revision);
// nullopt for a spelling no revision has.
std::optional<Revision> find_revision(std::string_view spelling);
// Throws std::invalid_argument naming the known spellings for one no revision has.
Revision parse_revision(std::string_view spelling);

// The spellings, oldest first.
const std::vector<std::string>& known_revisions();
// Index in known_revisions(), or nullopt for an unknown revision.
std::optional<std::size_t> revision_index(std::string_view revision);

// What a driver offers unless told otherwise (--revision), and what the mock server answers
// a version it does not know with.
const std::string& default_revision();

// The properties of a revision given by its spelling; false for an unknown one.
bool revision_has_batches(std::string_view revision);
// Whether `revision` is a modern one (no initialize handshake; RevisionTraits::initialize).
bool revision_is_modern(std::string_view revision);
// The newest revision with the initialize handshake: what an initialize selects.
const std::string& latest_legacy_revision();

}  // namespace mcpping
