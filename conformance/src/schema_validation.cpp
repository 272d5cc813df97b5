#include "conformance/schema_validation.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <set>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "core/check_registry.hpp"
#include "core/files.hpp"
#include "core/jsonrpc.hpp"
#include "core/scenario.hpp"
#include "core/text.hpp"

namespace mcpping {

namespace fs = std::filesystem;

namespace {

// JSON Schema 2020-12 keywords draft-07 lacks. valijson 1.0 reads draft-07 and would skip
// them silently; a schema that uses one is refused rather than validated less.
constexpr std::array<std::string_view, 9> kNewerKeywords = {
    "prefixItems",       "unevaluatedItems", "unevaluatedProperties",
    "dependentRequired", "dependentSchemas", "$dynamicRef",
    "$dynamicAnchor",    "$recursiveRef",    "$recursiveAnchor"};

// Keywords whose value is data, not a schema.
bool holds_data(std::string_view key) {
  return key == "const" || key == "enum" || key == "default" || key == "examples" ||
         key == "required" || key == "description" || key == "title" || key == "$comment";
}

// Keywords whose value maps names to schemas.
bool holds_named_schemas(std::string_view key) {
  return key == "properties" || key == "patternProperties" || key == "definitions" ||
         key == "$defs";
}

// A 2020-12 schema node as draft-07 reads it: `$ref`s into `$defs` point at `definitions`,
// and a `$ref` with other assertions beside it (2020-12 applies both, draft-07 only the
// reference) becomes an `allOf` of the reference and the rest. Throws SchemaError for a
// keyword draft-07 lacks.
void to_draft7(Json& node, const std::string& where) {
  if (node.is_array()) {
    for (auto& item : node) to_draft7(item, where);
    return;
  }
  if (!node.is_object()) return;
  for (const auto keyword : kNewerKeywords) {
    if (node.contains(keyword))
      throw SchemaError(where + ": the keyword \"" + std::string(keyword) +
                        "\" of JSON Schema 2020-12 has no draft-07 equivalent");
  }
  for (auto& [key, value] : node.items()) {
    if (holds_data(key)) continue;
    if (holds_named_schemas(key) && value.is_object()) {
      for (auto& [name, schema] : value.items()) to_draft7(schema, where);
    } else if (key != "$ref") {
      to_draft7(value, where);
    }
  }
  const auto ref = node.find("$ref");
  if (ref == node.end() || !ref->is_string()) return;
  std::string target = ref->get<std::string>();
  if (target.rfind("#/$defs/", 0) == 0) target = "#/definitions/" + target.substr(8);
  const bool assertions_beside = std::any_of(node.items().begin(), node.items().end(), [](auto it) {
    return it.key() != "$ref" && !holds_data(it.key());
  });
  if (!assertions_beside) {
    *ref = target;
    return;
  }
  node.erase("$ref");
  node["allOf"].push_back(Json{{"$ref", target}});
}

// The schema document of one revision, ready for valijson's draft-07 parser.
Json load_document(const fs::path& file) {
  const auto text = try_read_file(file);
  if (!text) throw SchemaError("cannot read " + file.string());
  Json doc = Json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw SchemaError(file.string() + " is not a JSON object");
  const std::string dialect = doc.value("$schema", "");
  if (doc.contains("$defs")) {
    doc["definitions"] = std::move(doc["$defs"]);
    doc.erase("$defs");
  }
  if (!doc.contains("definitions") || !doc["definitions"].is_object())
    throw SchemaError(file.string() + " has neither \"definitions\" nor \"$defs\"");
  if (dialect.find("2020-12") != std::string::npos || dialect.find("2019-09") != std::string::npos)
    to_draft7(doc, file.string());
  doc.erase("$schema");
  return doc;
}

// The suffix of the error envelope that takes JSON-RPC's "id": null (docs/verdicts.md,
// "Schema validation": "If there was an error in detecting the id in the Request object (e.g.
// Parse error/Invalid Request), it MUST be Null"), a definition of the suite's own.
constexpr const char* kNullIdError = "WithNullId";

// The error envelope `error` with its id required and null: the schema's RequestId is a
// string or an integer, and before 2025-11-25 the envelope requires it, so the schema has no
// form for an error whose request's id could not be read.
Json null_id_error(Json error) {
  error["properties"]["id"] = Json{{"type", "null"}};
  auto& required = error["required"];
  if (!required.is_array()) required = Json::array();
  if (std::find(required.begin(), required.end(), Json("id")) == required.end())
    required.push_back("id");
  return error;
}

// An error response whose code says the request could not be read: JSON-RPC's "Parse error"
// (-32700) or "Invalid Request" (-32600).
bool unreadable_request_code(const Json& message) {
  const auto error = message.find("error");
  if (error == message.end() || !error->is_object()) return false;
  const auto code = error->find("code");
  return code != error->end() && (*code == Json(-32700) || *code == Json(-32600));
}

// "<root>", "[params]", "[clientInfo]" -> "/params/clientInfo".
std::string pointer_of(const std::vector<std::string>& context) {
  std::string pointer;
  for (const auto& part : context) {
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']')
      pointer += "/" + part.substr(1, part.size() - 2);
  }
  return pointer.empty() ? "/" : pointer;
}

// How a message is named in the check's Actual: "the request initialize (id 1)".
std::string named(const Json& message, const std::optional<std::string>& answers) {
  const std::string id = message.is_object() && message.contains("id")
                             ? " (id " + safe_dump(message["id"]) + ")"
                             : std::string();
  if (message.is_object() && message.contains("method"))
    return (message.contains("id") ? "the request " : "the notification ") + method_of(message) +
           id;
  if (answers) return "the response to " + *answers + id;
  return "the response" + id + " to no request of the server's";
}

}  // namespace

struct SchemaSet::Impl {
  struct Revision {
    std::string name;
    // Read and changed (its root "$ref") only under `mutex`, while a definition compiles.
    mutable Json document;
    std::set<std::string> definitions;                 // their names
    std::map<std::string, std::string> by_method;      // method const -> definition
    std::string request, notification, result, error;  // the JSON-RPC envelopes
    // The error envelope with JSON-RPC's "id": null for a request whose id could not be read
    // (kNullIdError, built from `error`).
    std::string error_null_id;
  };
  fs::path dir;
  std::vector<Revision> revisions;
  mutable std::mutex mutex;  // guards `compiled` and the documents
  mutable std::map<std::string, std::unique_ptr<valijson::Schema>> compiled;  // "<rev>/<def>"

  const Revision* find(std::string_view name) const {
    const auto it = std::find_if(revisions.begin(), revisions.end(),
                                 [&](const Revision& r) { return r.name == name; });
    return it == revisions.end() ? nullptr : &*it;
  }

  // The compiled definition, compiled on first use.
  const valijson::Schema& schema(const Revision& r, const std::string& definition) const {
    std::lock_guard lock(mutex);
    auto& slot = compiled[r.name + "/" + definition];
    if (!slot) {
      Json& document = r.document;
      document["$ref"] = "#/definitions/" + definition;
      auto compiled_schema = std::make_unique<valijson::Schema>();
      try {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(document), *compiled_schema);
      } catch (const std::exception& e) {
        document.erase("$ref");
        throw SchemaError("schema " + r.name + "/" + definition + ": " + e.what());
      }
      document.erase("$ref");
      slot = std::move(compiled_schema);
    }
    return *slot;
  }

  // The first error of `message` against `definition`, or nullopt.
  std::optional<std::string> error_of(const Revision& r, const std::string& definition,
                                      const Json& message) const {
    const valijson::Schema& compiled_schema = schema(r, definition);
    valijson::Validator validator;
    valijson::ValidationResults results;
    if (validator.validate(compiled_schema, valijson::adapters::NlohmannJsonAdapter(message),
                           &results))
      return std::nullopt;
    valijson::ValidationResults::Error first;
    if (!results.popError(first)) return definition + ": invalid";
    return definition + " at " + pointer_of(first.context) + ": " + first.description;
  }
};

SchemaSet::SchemaSet(const fs::path& dir) : impl_(std::make_unique<Impl>()) {
  impl_->dir = dir;
  if (!fs::is_directory(dir)) throw SchemaError("--schemas " + dir.string() + ": no such folder");
  for (const auto& revision : known_revisions()) {
    const fs::path file = dir / revision / "schema.json";
    if (!fs::exists(file)) continue;
    Impl::Revision r{revision, load_document(file), {}, {}, {}, {}, {}, {}, {}};
    const auto& definitions = r.document["definitions"];
    for (const auto& [name, definition] : definitions.items()) {
      r.definitions.insert(name);
      static const Json::json_pointer kMethod("/properties/method/const");
      const Json method = definition.is_object() ? definition.value(kMethod, Json()) : Json();
      if (!method.is_string()) continue;
      // A union (ClientNotification, ServerRequest...) yields to the definition itself.
      const auto is_union = [](const std::string& n) {
        return n.rfind("Client", 0) == 0 || n.rfind("Server", 0) == 0;
      };
      auto& slot = r.by_method[method.get<std::string>()];
      if (slot.empty() || (is_union(slot) && !is_union(name))) slot = name;
    }
    const auto pick = [&](std::initializer_list<const char*> names) {
      for (const char* name : names)
        if (definitions.contains(name)) return std::string(name);
      throw SchemaError(file.string() + " defines no " + std::string(*names.begin()));
    };
    r.request = pick({"JSONRPCRequest"});
    r.notification = pick({"JSONRPCNotification"});
    r.result = pick({"JSONRPCResultResponse", "JSONRPCResponse"});
    r.error = pick({"JSONRPCErrorResponse", "JSONRPCError"});
    r.error_null_id = r.error + kNullIdError;
    auto null_id = null_id_error(definitions[r.error]);
    r.document["definitions"][r.error_null_id] = std::move(null_id);
    r.definitions.insert(r.error_null_id);
    impl_->revisions.push_back(std::move(r));
  }
  if (impl_->revisions.empty())
    throw SchemaError("--schemas " + dir.string() +
                      ": no <revision>/schema.json in it (it is laid out like the "
                      "specification repository's schema/ folder)");
  // The envelopes serve every message: compiled now, so a schema the validator cannot read
  // stops the run before any case.
  for (const auto& r : impl_->revisions) {
    for (const auto* envelope :
         {&r.request, &r.notification, &r.result, &r.error, &r.error_null_id})
      impl_->schema(r, *envelope);
  }
}

SchemaSet::~SchemaSet() = default;

const fs::path& SchemaSet::dir() const { return impl_->dir; }

std::vector<std::string> SchemaSet::revisions() const {
  std::vector<std::string> out;
  for (const auto& r : impl_->revisions) out.push_back(r.name);
  return out;
}

bool SchemaSet::has(std::string_view revision) const { return impl_->find(revision) != nullptr; }

MessageValidation SchemaSet::validate(const Json& message, std::string_view revision,
                                      const std::optional<std::string>& answers,
                                      bool id_unreadable) const {
  const auto* r = impl_->find(revision);
  if (!r) throw std::logic_error("no schema for revision " + std::string(revision));
  MessageValidation out;
  const std::string method = method_of(message);
  if (message.is_object() && message.contains("method")) {
    out.definitions.push_back(message.contains("id") ? r->request : r->notification);
    if (const auto it = r->by_method.find(method); it != r->by_method.end())
      out.definitions.push_back(it->second);
  } else if (message.is_object() && message.contains("error")) {
    // JSON-RPC's null id, where the request's id could not be read: the server wrote one
    // that is no RequestId, or the code says the request was unreadable.
    const bool null_id = message.contains("id") && message["id"].is_null();
    out.definitions.push_back(null_id && (id_unreadable || unreadable_request_code(message))
                                  ? r->error_null_id
                                  : r->error);
  } else {
    out.definitions.push_back(r->result);
    const auto request = answers ? r->by_method.find(*answers) : r->by_method.end();
    if (request != r->by_method.end() && message.is_object() && message.contains("result")) {
      const std::string& name = request->second;
      const auto stem = name.size() > 7 && name.compare(name.size() - 7, 7, "Request") == 0
                            ? name.substr(0, name.size() - 7)
                            : name;
      for (const auto& candidate : {stem + "Result", std::string("EmptyResult")}) {
        if (!r->definitions.count(candidate)) continue;
        out.definitions.push_back(candidate);
        break;
      }
    }
  }
  for (std::size_t i = 0; i < out.definitions.size() && !out.error; ++i) {
    // A result definition describes the response's `result` member, not the whole message.
    const bool result_only = i > 0 && !message.contains("method");
    out.error = impl_->error_of(*r, out.definitions[i], result_only ? message["result"] : message);
    if (out.error && result_only) out.error = "result: " + *out.error;
  }
  return out;
}

std::optional<CheckRecord> schema_check(const TranscriptRecords& transcript,
                                        std::string_view revision, const SchemaSet& schemas) {
  if (!schemas.has(revision)) return std::nullopt;
  constexpr std::size_t kNamed = 5;             // invalid messages named in full; the rest counted
  std::map<std::string, std::string> requests;  // the server's request id -> its method
  std::size_t messages = 0, invalid = 0;
  std::vector<std::string> named_errors;
  std::optional<double> first_invalid_at;
  bool unreadable_id_sent = false;  // the server wrote a message whose id is no RequestId
  for (const auto& record : transcript.records) {
    if (record.value("kind", "") != "frame" || !record.contains("json")) continue;
    const Json& message = record["json"];
    if (record.value("dir", "") == "s2c") {
      if (is_request(message)) requests[safe_dump(message["id"])] = method_of(message);
      if (message.is_object() && message.contains("id") && !message["id"].is_string() &&
          !message["id"].is_number_integer())
        unreadable_id_sent = true;
      continue;
    }
    if (record.value("dir", "") != "c2s") continue;
    ++messages;
    std::optional<std::string> answers;
    if (message.is_object() && !message.contains("method") && message.contains("id")) {
      if (const auto it = requests.find(safe_dump(message["id"])); it != requests.end())
        answers = it->second;
    }
    const auto validation = schemas.validate(message, revision, answers, unreadable_id_sent);
    if (!validation.error) continue;
    ++invalid;
    if (!first_invalid_at) first_invalid_at = record.value("t", 0.0);
    if (named_errors.size() < kNamed)
      named_errors.push_back("+" + format_ms(record.value("t", 0.0)) + " ms " +
                             named(message, answers) + ": " + *validation.error);
  }
  if (messages == 0) return std::nullopt;
  CheckRecord out;
  out.check = builtin_check("wire:schema-valid");
  out.implicit = true;
  out.expected = std::string(builtin_expected("wire:schema-valid"));
  const std::string schema = "schema/" + std::string(revision) + "/schema.json";
  if (invalid == 0) {
    out.outcome = Outcome::Met;
    out.actual = std::to_string(messages) + (messages == 1 ? " message" : " messages") +
                 " valid against " + schema;
    return out;
  }
  out.outcome = Outcome::Broken;
  out.t = *first_invalid_at;
  out.actual = std::to_string(invalid) + " of " + std::to_string(messages) +
               " messages invalid against " + schema + ": " + join(named_errors, "; ");
  if (invalid > named_errors.size())
    out.actual += "; and " + std::to_string(invalid - named_errors.size()) + " more";
  return out;
}

}  // namespace mcpping
