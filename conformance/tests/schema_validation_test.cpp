#include "conformance/schema_validation.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <thread>

#include "core/scenario.hpp"
#include "engine/default_server.hpp"

namespace mcpping {
namespace {

namespace fs = std::filesystem;

// A small schema of one revision, shaped as the specification's: the JSON-RPC envelopes and
// a few method definitions. `defs` is "definitions" (draft-07) or "$defs" (2020-12).
Json synthetic_schema(const std::string& dialect, const std::string& defs, bool modern_names) {
  const auto ref = [&](const std::string& name) {
    return Json{{"$ref", "#/" + defs + "/" + name}};
  };
  const Json id = ref("RequestId");
  const Json version = {{"const", "2.0"}, {"type", "string"}};
  Json d = Json::object();
  d["RequestId"] = {{"type", Json::array({"string", "integer"})}};
  d["Result"] = {{"type", "object"}, {"additionalProperties", Json::object()}};
  d["EmptyResult"] = ref("Result");
  d["JSONRPCRequest"] = {{"type", "object"},
                         {"properties",
                          {{"id", id},
                           {"jsonrpc", version},
                           {"method", {{"type", "string"}}},
                           {"params", {{"type", "object"}}}}},
                         {"required", {"id", "jsonrpc", "method"}}};
  d["JSONRPCNotification"] = {
      {"type", "object"},
      {"properties",
       {{"jsonrpc", version}, {"method", {{"type", "string"}}}, {"params", {{"type", "object"}}}}},
      {"required", {"jsonrpc", "method"}}};
  d[modern_names ? "JSONRPCResultResponse" : "JSONRPCResponse"] = {
      {"type", "object"},
      {"properties", {{"id", id}, {"jsonrpc", version}, {"result", ref("Result")}}},
      {"required", {"id", "jsonrpc", "result"}}};
  d[modern_names ? "JSONRPCErrorResponse" : "JSONRPCError"] = {
      {"type", "object"},
      {"properties",
       {{"id", id},
        {"jsonrpc", version},
        {"error",
         {{"type", "object"},
          {"properties", {{"code", {{"type", "integer"}}}, {"message", {{"type", "string"}}}}},
          {"required", {"code", "message"}}}}}},
      {"required", {"error", "jsonrpc"}}};
  d["Implementation"] = {
      {"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}, {"required", {"name"}}};
  d["InitializeRequestParams"] = {
      {"type", "object"},
      {"properties",
       {{"protocolVersion", {{"type", "string"}}},
        {"capabilities", {{"type", "object"}}},
        // 2020-12 applies an assertion beside a $ref too (draft-07 would drop it).
        {"clientInfo", {{"$ref", "#/" + defs + "/Implementation"}, {"minProperties", 2}}}}},
      {"required", {"protocolVersion", "capabilities", "clientInfo"}}};
  d["InitializeRequest"] = {{"type", "object"},
                            {"properties",
                             {{"method", {{"const", "initialize"}, {"type", "string"}}},
                              {"params", ref("InitializeRequestParams")}}},
                            {"required", {"method", "params"}}};
  d["PingRequest"] = {{"type", "object"},
                      {"properties", {{"method", {{"const", "ping"}, {"type", "string"}}}}},
                      {"required", {"method"}}};
  d["ListRootsRequest"] = {
      {"type", "object"},
      {"properties", {{"method", {{"const", "roots/list"}, {"type", "string"}}}}},
      {"required", {"method"}}};
  d["ListRootsResult"] = {{"type", "object"},
                          {"properties", {{"roots", {{"type", "array"}}}}},
                          {"required", {"roots"}}};
  // A union naming the same method: the definition itself wins.
  d["ClientRequest"] = {{"anyOf", Json::array({ref("InitializeRequest"), ref("PingRequest")})},
                        {"properties", {{"method", {{"const", "ping"}}}}}};
  return {{"$schema", dialect}, {defs, d}};
}

class SchemaValidation : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("schema-validation-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    write("2025-06-18",
          synthetic_schema("http://json-schema.org/draft-07/schema#", "definitions", false));
    write("2025-11-25",
          synthetic_schema("https://json-schema.org/draft/2020-12/schema", "$defs", true));
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& revision, const Json& schema) {
    fs::create_directories(dir_ / revision);
    std::ofstream(dir_ / revision / "schema.json") << schema.dump(2);
  }

  fs::path dir_;
};

const Json kInitialize = Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"initialize",
  "params":{"protocolVersion":"2025-11-25","capabilities":{},
            "clientInfo":{"name":"c","version":"1"}}})");

TEST_F(SchemaValidation, ReadsEveryRevisionTheFolderHas) {
  const SchemaSet schemas(dir_);
  EXPECT_EQ(schemas.revisions(), (std::vector<std::string>{"2025-06-18", "2025-11-25"}));
  EXPECT_TRUE(schemas.has("2025-11-25"));
  EXPECT_FALSE(schemas.has("2024-11-05"));
}

TEST_F(SchemaValidation, AValidMessagePassesInBothDrafts) {
  const SchemaSet schemas(dir_);
  for (const auto* revision : {"2025-06-18", "2025-11-25"}) {
    const auto result = schemas.validate(kInitialize, revision);
    EXPECT_FALSE(result.error) << revision << ": " << *result.error;
    EXPECT_EQ(result.definitions, (std::vector<std::string>{"JSONRPCRequest", "InitializeRequest"}))
        << revision;
  }
}

TEST_F(SchemaValidation, AMissingRequiredFieldFailsWithTheDefinitionAndThePath) {
  const SchemaSet schemas(dir_);
  Json message = kInitialize;
  message["params"].erase("clientInfo");
  for (const auto* revision : {"2025-06-18", "2025-11-25"}) {
    const auto result = schemas.validate(message, revision);
    ASSERT_TRUE(result.error) << revision;
    EXPECT_NE(result.error->find("InitializeRequest at /params:"), std::string::npos)
        << *result.error;
    EXPECT_NE(result.error->find("clientInfo"), std::string::npos) << *result.error;
  }
}

TEST_F(SchemaValidation, Draft2020RefsIntoDefsResolve) {
  const SchemaSet schemas(dir_);
  Json message = kInitialize;
  message["params"]["clientInfo"].erase("name");  // Implementation, reached by two $defs refs
  const auto result = schemas.validate(message, "2025-11-25");
  ASSERT_TRUE(result.error);
  EXPECT_NE(result.error->find("/params/clientInfo"), std::string::npos) << *result.error;
}

TEST_F(SchemaValidation, Draft2020AppliesAnAssertionBesideARef) {
  const SchemaSet schemas(dir_);
  Json message = kInitialize;
  message["params"]["clientInfo"] = {{"name", "c"}};  // a name, but fewer than 2 properties
  EXPECT_TRUE(schemas.validate(message, "2025-11-25").error);
}

TEST_F(SchemaValidation, AnUnknownMethodGetsTheEnvelopeOnly) {
  const SchemaSet schemas(dir_);
  const auto request = Json::parse(R"({"jsonrpc":"2.0","id":"a","method":"x/y","params":{}})");
  const auto valid = schemas.validate(request, "2025-11-25");
  EXPECT_EQ(valid.definitions, (std::vector<std::string>{"JSONRPCRequest"}));
  EXPECT_FALSE(valid.error);
  const auto null_id = Json::parse(R"({"jsonrpc":"2.0","id":null,"method":"x/y"})");
  const auto invalid = schemas.validate(null_id, "2025-11-25");
  ASSERT_TRUE(invalid.error);
  EXPECT_NE(invalid.error->find("JSONRPCRequest at /id:"), std::string::npos) << *invalid.error;
  const auto notification = Json::parse(R"({"jsonrpc":"1.0","method":"notifications/x"})");
  const auto old_version = schemas.validate(notification, "2025-06-18");
  EXPECT_EQ(old_version.definitions, (std::vector<std::string>{"JSONRPCNotification"}));
  EXPECT_TRUE(old_version.error);
}

TEST_F(SchemaValidation, AMethodMapsToItsDefinitionNotToAUnion) {
  const SchemaSet schemas(dir_);
  const auto ping = Json::parse(R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  EXPECT_EQ(schemas.validate(ping, "2025-06-18").definitions,
            (std::vector<std::string>{"JSONRPCRequest", "PingRequest"}));
}

TEST_F(SchemaValidation, AResponseMapsToTheResultOfTheRequestItAnswers) {
  const SchemaSet schemas(dir_);
  const auto pong = Json::parse(R"({"jsonrpc":"2.0","id":3,"result":{}})");
  const auto to_ping = schemas.validate(pong, "2025-11-25", "ping");
  EXPECT_EQ(to_ping.definitions,
            (std::vector<std::string>{"JSONRPCResultResponse", "EmptyResult"}));
  EXPECT_FALSE(to_ping.error);
  // roots/list has a result of its own, which {} is not.
  const auto to_roots = schemas.validate(pong, "2025-06-18", "roots/list");
  EXPECT_EQ(to_roots.definitions, (std::vector<std::string>{"JSONRPCResponse", "ListRootsResult"}));
  ASSERT_TRUE(to_roots.error);
  EXPECT_NE(to_roots.error->find("result: ListRootsResult at /:"), std::string::npos)
      << *to_roots.error;
  // Answering no request the schema knows: the envelope alone.
  EXPECT_EQ(schemas.validate(pong, "2025-11-25", "x/y").definitions,
            (std::vector<std::string>{"JSONRPCResultResponse"}));
  EXPECT_EQ(schemas.validate(pong, "2025-11-25").definitions,
            (std::vector<std::string>{"JSONRPCResultResponse"}));
}

TEST_F(SchemaValidation, AnErrorMapsToTheErrorEnvelope) {
  const SchemaSet schemas(dir_);
  const auto error =
      Json::parse(R"({"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}})");
  EXPECT_FALSE(schemas.validate(error, "2025-11-25", "x/y").error);
  EXPECT_EQ(schemas.validate(error, "2025-06-18", "ping").definitions,
            (std::vector<std::string>{"JSONRPCError"}));
  const auto fractional_code =
      Json::parse(R"({"jsonrpc":"2.0","id":4,"error":{"code":1.5,"message":"no"}})");
  EXPECT_TRUE(schemas.validate(fractional_code, "2025-06-18").error);
}

TEST_F(SchemaValidation, RefusesAFolderItCannotUse) {
  EXPECT_THROW(SchemaSet(dir_ / "missing"), SchemaError);
  fs::create_directories(dir_ / "empty");
  EXPECT_THROW(SchemaSet(dir_ / "empty"), SchemaError);
  write("2024-11-05", Json{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                           {"$defs", {{"JSONRPCRequest", {{"prefixItems", Json::array()}}}}}});
  try {
    SchemaSet schemas(dir_);
    ADD_FAILURE() << "a 2020-12 keyword draft-07 lacks was accepted";
  } catch (const SchemaError& e) {
    EXPECT_NE(std::string(e.what()).find("prefixItems"), std::string::npos) << e.what();
  }
}

Json frame(const std::string& dir, double t, const Json& message) {
  return {{"kind", "frame"}, {"t", t}, {"dir", dir}, {"json", message}};
}

TEST_F(SchemaValidation, TheCheckNamesEachInvalidMessageAndItsError) {
  const SchemaSet schemas(dir_);
  TranscriptRecords transcript;
  Json no_client_info = kInitialize;
  no_client_info["params"].erase("clientInfo");
  transcript.records = {
      frame("c2s", 1.0, no_client_info),
      frame("s2c", 2.0, Json::parse(R"({"jsonrpc":"2.0","id":7,"method":"roots/list"})")),
      frame("c2s", 3.0, Json::parse(R"({"jsonrpc":"2.0","id":7,"result":{}})")),
      frame("c2s", 4.0, Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})")),
  };
  const auto record = schema_check(transcript, "2025-11-25", schemas);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->check.id, "wire:schema-valid");
  EXPECT_EQ(record->check.kind, CheckKind::Collateral);
  EXPECT_TRUE(record->implicit);
  EXPECT_EQ(record->outcome, Outcome::Broken);
  EXPECT_DOUBLE_EQ(record->t, 1.0);
  EXPECT_NE(record->actual.find("2 of 3 messages invalid against schema/2025-11-25/schema.json"),
            std::string::npos)
      << record->actual;
  EXPECT_NE(record->actual.find("the request initialize (id 1): InitializeRequest at /params:"),
            std::string::npos)
      << record->actual;
  EXPECT_NE(record->actual.find("the response to roots/list (id 7): result: ListRootsResult"),
            std::string::npos)
      << record->actual;
}

TEST_F(SchemaValidation, TheCheckPassesValidMessagesAndSkipsWhatItCannotJudge) {
  const SchemaSet schemas(dir_);
  TranscriptRecords transcript;
  transcript.records = {frame("c2s", 1.0, kInitialize)};
  const auto record = schema_check(transcript, "2025-06-18", schemas);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->outcome, Outcome::Met);
  EXPECT_EQ(record->actual, "1 message valid against schema/2025-06-18/schema.json");
  // No schema for the session's revision, or nothing the client sent: no record.
  EXPECT_FALSE(schema_check(transcript, "2024-11-05", schemas));
  transcript.records = {
      frame("s2c", 1.0, Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"))};
  EXPECT_FALSE(schema_check(transcript, "2025-06-18", schemas));
}

TEST_F(SchemaValidation, IsSafeFromSeveralThreadsAtOnce) {
  const SchemaSet schemas(dir_);
  std::vector<std::thread> threads;
  std::vector<int> errors(4, 0);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      for (int n = 0; n < 50; ++n)
        if (schemas.validate(kInitialize, i % 2 ? "2025-06-18" : "2025-11-25").error) ++errors[i];
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(errors, (std::vector<int>{0, 0, 0, 0}));
}

// The specification's own schemas, when this checkout has them beside it (never in its tree).
TEST(SpecificationSchemas, EveryRevisionCompilesAndJudgesInitialize) {
  const fs::path dir = MCP_PING_TEST_SCHEMAS;
  if (dir.empty() || !fs::is_directory(dir)) GTEST_SKIP() << "no spec schemas at " << dir;
  const SchemaSet schemas(dir);
  EXPECT_EQ(schemas.revisions().size(), 5u);
  for (const auto* revision : {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}) {
    EXPECT_FALSE(schemas.validate(kInitialize, revision).error) << revision;
    Json broken = kInitialize;
    broken["params"].erase("clientInfo");
    const auto result = schemas.validate(broken, revision);
    ASSERT_TRUE(result.error) << revision;
    EXPECT_NE(result.error->find("clientInfo"), std::string::npos) << *result.error;
    const auto pong = Json::parse(R"({"jsonrpc":"2.0","id":"p","result":{}})");
    EXPECT_FALSE(schemas.validate(pong, revision, "ping").error) << revision;
  }
  // 2026-07-28 has no initialize and no ping: an unknown method, the envelope alone.
  EXPECT_EQ(schemas.validate(kInitialize, "2026-07-28").definitions,
            (std::vector<std::string>{"JSONRPCRequest"}));
}

// Regression: a client's {"id": null, "error": ...} to a request whose id it could not read
// failed wire:schema-valid at every revision, as no RequestId. JSON-RPC, which every MCP
// message "MUST follow", says that id "MUST be Null"; the schema has no form for the case
// before 2025-11-25 and offers an absent id from then on (docs/verdicts.md, "Schema
// validation"). A null id stays invalid on a success, and on an error to a readable request.
TEST(SpecificationSchemas, RegressionANullIdErrorForAnUnreadableRequestFailedSchemaValid) {
  const fs::path dir = MCP_PING_TEST_SCHEMAS;
  if (dir.empty() || !fs::is_directory(dir)) GTEST_SKIP() << "no spec schemas at " << dir;
  const SchemaSet schemas(dir);
  const auto invalid_request = Json::parse(
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}})");
  const auto internal_error = Json::parse(
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}})");
  const auto null_id_success = Json::parse(R"({"jsonrpc":"2.0","id":null,"result":{}})");
  const auto readable_ping = Json::parse(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
  const auto object_id_ping = Json::parse(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})");
  for (const auto& revision : schemas.revisions()) {
    // The code says the request could not be read: JSON-RPC's form.
    const auto by_code = schemas.validate(invalid_request, revision);
    EXPECT_FALSE(by_code.error) << revision << ": " << *by_code.error;
    EXPECT_EQ(by_code.definitions.size(), 1u);
    EXPECT_NE(by_code.definitions.front().find("WithNullId"), std::string::npos);
    // Another code: valid once the server wrote an id that is no RequestId.
    EXPECT_TRUE(schemas.validate(internal_error, revision).error) << revision;
    EXPECT_FALSE(schemas.validate(internal_error, revision, std::nullopt, true).error) << revision;
    EXPECT_TRUE(schemas.validate(null_id_success, revision, "ping", true).error) << revision;

    TranscriptRecords transcript;
    transcript.records = {frame("s2c", 1.0, object_id_ping), frame("c2s", 2.0, internal_error)};
    auto record = schema_check(transcript, revision, schemas);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->outcome, Outcome::Met) << revision << ": " << record->actual;
    transcript.records = {frame("s2c", 1.0, readable_ping), frame("c2s", 2.0, internal_error)};
    record = schema_check(transcript, revision, schemas);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->outcome, Outcome::Broken) << revision;
  }
}

// The requests the mock server's default server answers, at `revision`: every method it
// serves, with the params a client sends (the capabilities declare every feature, so every
// listing gets its result rather than -32601).
std::vector<Json> requests_the_mock_answers(const std::string& revision) {
  const bool modern = revision_is_modern(revision);
  Json meta = Json::object();
  if (modern) {
    meta = {{"io.modelcontextprotocol/protocolVersion", revision},
            {"io.modelcontextprotocol/clientCapabilities", Json::object()},
            {"io.modelcontextprotocol/clientInfo", {{"name", "c"}, {"version", "1"}}}};
  }
  const auto request = [&](const std::string& method, Json params) {
    if (modern) params["_meta"] = meta;
    return Json{{"jsonrpc", "2.0"}, {"id", method}, {"method", method}, {"params", params}};
  };
  std::vector<Json> out = {
      request("initialize", {{"protocolVersion", revision},
                             {"capabilities", Json::object()},
                             {"clientInfo", {{"name", "c"}, {"version", "1"}}}}),
      request("server/discover", Json::object()),
      request("ping", Json::object()),
      request("tools/list", Json::object()),
      request("tools/call", {{"name", "echo"}, {"arguments", {{"text", "nonce"}}}}),
      request("resources/list", Json::object()),
      request("resources/templates/list", Json::object()),
      request("prompts/list", Json::object()),
      request("completion/complete", {{"ref", {{"type", "ref/prompt"}, {"name", "p"}}},
                                      {"argument", {{"name", "a"}, {"value", "v"}}}}),
      request("logging/setLevel", {{"level", "info"}})};
  return out;
}

// A fixture's scripted results ("respond" with a "result") with the method of the request
// they answer (the "expect" that captured it), and the revisions the case runs at.
struct ScriptedResults {
  std::vector<std::pair<std::string, Json>> results;
  std::vector<std::string> revisions;
};

ScriptedResults scripted_results(const fs::path& file) {
  std::ifstream in(file);
  const auto fixture = Json::parse(in);
  const auto range = fixture.value("revisions", Json::object());
  const auto from = revision_index(range.value("from", "2024-11-05"));
  const auto until = revision_index(range.value("until", "2025-11-25"));
  ScriptedResults out;
  for (const auto& revision : known_revisions()) {
    const auto at = revision_index(revision);
    if (from && until && at && *at >= *from && *at <= *until) out.revisions.push_back(revision);
  }
  std::map<std::string, std::string> captured;  // capture name -> method
  for (const auto& step : fixture["script"]) {
    if (step.contains("expect") && step.contains("as") && step["expect"].contains("method") &&
        step["expect"]["method"].is_string())
      captured[step["as"]] = step["expect"]["method"];
    if (step.contains("respond") && step.contains("result"))
      out.results.emplace_back(captured[step["respond"].get<std::string>()], step["result"]);
  }
  return out;
}

// Regression: at 2026-07-28 the mock server's server/discover and listing results lacked the
// "ttlMs" and "cacheScope" the schema requires of a CacheableResult, so a client that
// validates results (the Python SDK does) failed them through the mock's own defect. Every
// result the mock server sends, default or scripted, validates against the schema of the
// revision it is sent at.
TEST(SpecificationSchemas, RegressionModernResultsLackedTtlMsAndCacheScope) {
  const fs::path dir = MCP_PING_TEST_SCHEMAS;
  if (dir.empty() || !fs::is_directory(dir)) GTEST_SKIP() << "no spec schemas at " << dir;
  const SchemaSet schemas(dir);
  std::ifstream in(fs::path(MCP_PING_FIXTURES) / "defaults.json");
  const auto defaults = Json::parse(in);
  for (const auto& revision : schemas.revisions()) {
    ServerDefaults d;
    d.server_info = defaults["server_info"];
    d.tools = defaults["tools"];
    d.capabilities = {{"tools", Json::object()},
                      {"resources", Json::object()},
                      {"prompts", Json::object()},
                      {"completions", Json::object()},
                      {"logging", Json::object()}};
    d.revision = revision;
    d.transport = "stdio";
    const auto era = revision_is_modern(revision) ? Era::Modern : Era::Legacy;
    std::size_t results = 0;
    for (const auto& request : requests_the_mock_answers(revision)) {
      const std::string method = request["method"];
      const auto answer = default_answer(request, d, era);
      ASSERT_TRUE(answer) << revision << " " << method;
      if (answer->contains("result")) ++results;
      const auto validation = schemas.validate(*answer, revision, method);
      EXPECT_FALSE(validation.error)
          << revision << " " << method << ": " << *validation.error << "\n"
          << answer->dump();
    }
    EXPECT_GE(results, 8u) << revision;
  }
  // The scripted results, at every revision their case runs.
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(MCP_PING_FIXTURES) / "scenarios")) {
    if (entry.path().extension() != ".json") continue;
    const auto scripted = scripted_results(entry.path());
    for (const auto& [method, result] : scripted.results) {
      const auto answer = Json{{"jsonrpc", "2.0"}, {"id", 1}, {"result", result}};
      for (const auto& revision : scripted.revisions) {
        if (!schemas.has(revision)) continue;
        const auto validation = schemas.validate(answer, revision, method);
        EXPECT_FALSE(validation.error)
            << entry.path() << " at " << revision << ": " << *validation.error;
      }
    }
  }
}

}  // namespace
}  // namespace mcpping
