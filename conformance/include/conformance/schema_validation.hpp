// Validates every message a client sent against the specification's own JSON schema for the
// session's revision: the check wire:schema-valid (docs/verdicts.md, "Schema validation").
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "core/transcript_model.hpp"

namespace mcpping {

using Json = nlohmann::json;

// A schema folder the suite cannot use (a missing folder, unreadable JSON, a schema the
// validator cannot compile): the run stops before any case.
class SchemaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What validating one message found.
struct MessageValidation {
  // The definitions it was validated against, envelope first: {"JSONRPCRequest",
  // "InitializeRequest"}; the envelope alone for a method the schema does not know.
  std::vector<std::string> definitions;
  // The first schema error, naming the definition, the path and the rule:
  // "InitializeRequest at /params: Missing required property 'clientInfo'." nullopt: valid.
  std::optional<std::string> error;
};

// The specification's schemas from a folder laid out like its repository's schema/
// (<dir>/<revision>/schema.json), draft-07 (2024-11-05..2025-06-18) and 2020-12 (from
// 2025-11-25) alike. Each revision's document is read once, when constructed; each
// definition is compiled the first time a message needs it, and only once per process.
// Safe to use from several threads at once.
class SchemaSet {
 public:
  // Reads <dir>/<revision>/schema.json for every known revision that has one. Throws
  // SchemaError when the folder holds none, or one cannot be read or used.
  explicit SchemaSet(const std::filesystem::path& dir);
  ~SchemaSet();
  SchemaSet(const SchemaSet&) = delete;
  SchemaSet& operator=(const SchemaSet&) = delete;

  const std::filesystem::path& dir() const;
  // The revisions that have a schema, oldest first.
  std::vector<std::string> revisions() const;
  bool has(std::string_view revision) const;

  // Validates `message`, sent by the client in a session at `revision` (one that has()).
  // A request or notification maps to the definition whose `method` is its method (and the
  // JSON-RPC envelope); a response to the result definition of the request it answers
  // (`answers`: that request's method, when the server sent one with its id), an error to
  // the error envelope; anything else, or a method the schema does not know, to the
  // envelope alone. An error with "id": null is JSON-RPC's answer to a request whose id could
  // not be read: it is validated against the error envelope with a null id
  // ("JSONRPCErrorWithNullId", "JSONRPCErrorResponseWithNullId") when `id_unreadable` (the
  // server wrote a message whose id is no RequestId) or its code is -32700 or -32600, and
  // fails the envelope's RequestId otherwise.
  MessageValidation validate(const Json& message, std::string_view revision,
                             const std::optional<std::string>& answers = std::nullopt,
                             bool id_unreadable = false) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The wire:schema-valid record of one case: every message the client sent (each `c2s` frame
// of the transcript, batched ones one by one) validated at `revision`, the session's.
// Broken, naming each invalid message and its schema error, when one is invalid; nullopt when
// `revision` has no schema in `schemas` or the client sent no message.
std::optional<CheckRecord> schema_check(const TranscriptRecords& transcript,
                                        std::string_view revision, const SchemaSet& schemas);

}  // namespace mcpping
