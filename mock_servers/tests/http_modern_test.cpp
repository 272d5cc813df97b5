#include "http_modern.hpp"
#include "core/check_registry.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "http_harness.hpp"

namespace mcpping {
namespace {

using Json = nlohmann::json;

Json call(const std::string& name = "echo", const std::string& version = "2026-07-28") {
  Json meta = Json::object();
  if (!version.empty()) meta["io.modelcontextprotocol/protocolVersion"] = version;
  return Json{{"jsonrpc", "2.0"},
              {"id", 1},
              {"method", "tools/call"},
              {"params", {{"name", name}, {"arguments", Json::object()}, {"_meta", meta}}}};
}

httplib::Request post(const httplib::Headers& headers) {
  httplib::Request req;
  req.method = "POST";
  req.path = "/mcp";
  req.headers = headers;
  return req;
}

std::vector<HttpRuleId> rules_of(const std::vector<Rejection>& problems) {
  std::vector<HttpRuleId> out;
  for (const auto& p : problems) out.push_back(p.rule);
  return out;
}

const httplib::Headers kComplete = {
    {"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "echo"}};

TEST(HttpModern, PlainHeaderValuesAreTheirOwnValue) {
  EXPECT_EQ(decode_header_value("echo"), "echo");
  EXPECT_EQ(decode_header_value(""), "");
  EXPECT_EQ(decode_header_value("=?base64?"), "=?base64?");  // too short for the sentinel
}

TEST(HttpModern, TheBase64SentinelIsDecoded) {
  // The spec's own examples (Value Encoding).
  EXPECT_EQ(decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?="),
            "Hello, \xE4\xB8\x96\xE7\x95\x8C");
  EXPECT_EQ(decode_header_value("=?base64?IHBhZGRlZCA=?="), " padded ");
  EXPECT_EQ(decode_header_value("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="), "=?base64?literal?=");
  // (Split literals: "??=" would be a trigraph.)
  EXPECT_EQ(decode_header_value("=?"
                                "?="),
            "=?"
            "?=");  // not the sentinel: no "base64"
  EXPECT_EQ(decode_header_value("=?base64?"
                                "?="),
            "");
}

TEST(HttpModern, InvalidBase64InTheSentinelIsNoValue) {
  EXPECT_FALSE(decode_header_value("=?base64?SGVsbG8?="));   // length not a multiple of 4
  EXPECT_FALSE(decode_header_value("=?base64?SGV*bG8s?="));  // not a Base64 digit
  EXPECT_FALSE(decode_header_value("=?base64?SG=sbG8s?="));  // padding in the middle
  EXPECT_FALSE(decode_header_value("=?base64?S===?="));      // three padding characters
}

TEST(HttpModern, McpNameMirrorsTheNameOrUriOfThreeMethods) {
  EXPECT_EQ(mirrored_name(call("echo")), "echo");
  EXPECT_EQ(mirrored_name(Json::parse(
                R"({"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p"}})")),
            "p");
  EXPECT_EQ(
      mirrored_name(Json::parse(
          R"({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a"}})")),
      "file:///a");
  EXPECT_FALSE(mirrored_name(Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})")));
  EXPECT_FALSE(mirrored_name(
      Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}})")));
}

TEST(HttpModern, ARequestWithEveryHeaderMatchingBreaksNothing) {
  EXPECT_TRUE(modern_header_problems(post(kComplete), call()).empty());
  // Header names are case-insensitive; a Base64-encoded name is compared decoded.
  EXPECT_TRUE(modern_header_problems(post({{"mcp-protocol-version", "2026-07-28"},
                                           {"MCP-METHOD", "tools/call"},
                                           {"mcp-name", "=?base64?ZWNobw==?="}}),
                                     call())
                  .empty());
}

TEST(HttpModern, EachMissingHeaderIsItsOwnRule) {
  const auto problems = modern_header_problems(post({}), call());
  EXPECT_EQ(rules_of(problems),
            (std::vector<HttpRuleId>{HttpRuleId::ModernVersionMissing, HttpRuleId::MethodMissing,
                                     HttpRuleId::NameMissing}));
  EXPECT_EQ(problems[1].note, "no Mcp-Method header");
}

TEST(HttpModern, AHeaderThatDiffersFromTheBodyIsAMismatch) {
  const auto problems = modern_header_problems(post({{"MCP-Protocol-Version", "2025-11-25"},
                                                     {"Mcp-Method", "Tools/Call"},
                                                     {"Mcp-Name", "=?base64?ZWNoMA==?="}}),
                                               call());
  ASSERT_EQ(rules_of(problems),
            (std::vector<HttpRuleId>{HttpRuleId::ModernVersionMismatch, HttpRuleId::MethodMismatch,
                                     HttpRuleId::NameMismatch}));
  EXPECT_NE(problems[0].note.find("2025-11-25"), std::string::npos) << problems[0].note;
  EXPECT_NE(problems[1].note.find("\"Tools/Call\""), std::string::npos) << problems[1].note;
  const auto bad = modern_header_problems(post({{"MCP-Protocol-Version", "2026-07-28"},
                                                {"Mcp-Method", "tools/call"},
                                                {"Mcp-Name", "=?base64?!!!!?="}}),
                                          call());
  ASSERT_EQ(rules_of(bad), (std::vector<HttpRuleId>{HttpRuleId::NameMismatch}));
  EXPECT_NE(bad[0].note.find("invalid Base64"), std::string::npos) << bad[0].note;
}

TEST(HttpModern, WithoutAVersionInMetaTheVersionHeaderIsOnlyRequired) {
  EXPECT_TRUE(modern_header_problems(post(kComplete), call("echo", "")).empty());
  EXPECT_EQ(rules_of(modern_header_problems(
                post({{"Mcp-Method", "tools/call"}, {"Mcp-Name", "echo"}}), call("echo", ""))),
            (std::vector<HttpRuleId>{HttpRuleId::ModernVersionMissing}));
}

TEST(HttpModern, NotificationsAndResponsesHaveNoHeaderRules) {
  EXPECT_TRUE(
      modern_header_problems(post({}), Json{{"jsonrpc", "2.0"}, {"method", "notifications/x"}})
          .empty());
  EXPECT_TRUE(modern_header_problems(
                  post({}), Json{{"jsonrpc", "2.0"}, {"id", "p"}, {"result", Json::object()}})
                  .empty());
}

TEST(HttpModern, TheRulesRecordWithoutRefusingButGetAndDeleteAreRefused) {
  for (const auto id : {HttpRuleId::ModernVersionMissing, HttpRuleId::ModernVersionMismatch,
                        HttpRuleId::MethodMissing, HttpRuleId::MethodMismatch,
                        HttpRuleId::NameMissing, HttpRuleId::NameMismatch}) {
    EXPECT_FALSE(http_rule(id).refuses);
    EXPECT_EQ(builtin_check(http_rule(id).check).level, Level::Must);
  }
  EXPECT_EQ(http_rule(HttpRuleId::ModernVersionMissing).check, "http:protocol-version");
  EXPECT_EQ(http_rule(HttpRuleId::MethodMismatch).check, "http:mcp-method");
  EXPECT_EQ(http_rule(HttpRuleId::NameMissing).check, "http:mcp-name");
  const auto& get = http_rule(HttpRuleId::ModernGetOrDelete);
  EXPECT_TRUE(get.refuses);
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(builtin_check(get.check).level, Level::Info);
}

TEST(HttpModern, EveryRuleCitesASentenceOfTheCatalogue) {
  std::ifstream file(MCP_FIXTURES_DIR "/spec-references.json");
  const auto refs = Json::parse(file, nullptr, false);
  ASSERT_TRUE(refs.is_object());
  for (const auto id :
       {HttpRuleId::ModernVersionMissing, HttpRuleId::ModernVersionMismatch,
        HttpRuleId::MethodMissing, HttpRuleId::MethodMismatch, HttpRuleId::NameMissing,
        HttpRuleId::NameMismatch, HttpRuleId::ModernGetOrDelete}) {
    const std::string key(http_rule(id).spec);
    ASSERT_TRUE(refs.contains(key)) << key;
    EXPECT_EQ(refs[key]["revision"], "2026-07-28") << key;
  }
}

using namespace test::http;
using test::check_def;
using test::find_check;
using test::records_of;

// ---- the 2026-07-28 binding end to end (a modern run on a real HttpChannel) ----

Json modern_meta() {
  return {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
          {"io.modelcontextprotocol/clientCapabilities", Json::object()},
          {"io.modelcontextprotocol/clientInfo", {{"name", "test"}, {"version", "1"}}}};
}

Json modern_request(int id, const std::string& method, Json params = Json::object()) {
  params["_meta"] = modern_meta();
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

// The request metadata headers of `request`, as a conforming client sends them.
httplib::Headers modern_headers(const Json& request) {
  httplib::Headers h = headers({}, "2026-07-28");
  h.emplace("Mcp-Method", request["method"].get<std::string>());
  if (request["params"].contains("name"))
    h.emplace("Mcp-Name", request["params"]["name"].get<std::string>());
  return h;
}

// ping/modern-session's script: discover, the call, a ping on its POST, no response wanted.
Json modern_session_script() {
  return Json::array({{{"discover", Json::object()}, {"check", check_def("discovered", "SHOULD")}},
                      expect_call(),
                      {{"send", ping_frame("modern-ping")}, {"label", "ping"}, {"on", "post:call"}},
                      {{"expect_no_response", "ping"},
                       {"forbid", "any"},
                       {"check", check_def("no-response")},
                       {"info_check", check_def("reply", "INFO")}},
                      {{"respond", "call"}, {"default", true}, {"on", "post:call"}},
                      {{"serve_defaults", Json::object()}}});
}

// A modern client's session: the probe, a GET and a DELETE the binding refuses, the call
// whose stream carries the ping before the result; `pong` POSTs a pong to it.
std::vector<Json> run_modern_session(Harness& h, bool pong_it) {
  Client c(h.port());
  const auto discover = modern_request(0, "server/discover");
  auto probe = c.post(discover, modern_headers(discover));
  EXPECT_TRUE(probe);
  if (!probe) return {};
  EXPECT_EQ(probe->status, 200);
  EXPECT_FALSE(probe->has_header("Mcp-Session-Id"));
  const auto result = Json::parse(probe->body, nullptr, false);
  EXPECT_EQ(result["result"]["supportedVersions"], Json::array({"2026-07-28"})) << probe->body;

  for (const auto* method : {"GET", "DELETE"}) {
    httplib::Request req;
    req.method = method;
    req.path = "/mcp";
    req.headers = {{"Accept", "text/event-stream"}, {"MCP-Protocol-Version", "2026-07-28"}};
    auto answer = c.cli.send(req);
    EXPECT_TRUE(answer);
    if (!answer) continue;
    EXPECT_EQ(answer->status, 405) << method;
    EXPECT_EQ(answer->get_header_value("Allow"), "POST") << method;
  }

  const auto request =
      modern_request(1, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}});
  StreamReader call(h.port(), "POST", "/mcp", modern_headers(request), request.dump());
  const auto first = call.wait_for("modern-ping");
  EXPECT_EQ(call.header("Content-Type"), "text/event-stream");
  EXPECT_TRUE(call.header("Mcp-Session-Id").empty());
  if (pong_it) {
    auto answer = c.post(pong("modern-ping"), headers({}, "2026-07-28"));
    EXPECT_TRUE(answer);
    if (answer) {
      EXPECT_EQ(answer->status, 202);
    }
  }
  const auto messages = data_messages(call.wait_end());
  EXPECT_EQ(messages.size(), 2u);
  if (messages.size() == 2) {
    EXPECT_EQ(messages[0], ping_frame("modern-ping"));
    EXPECT_EQ(messages[1]["id"], 1);
    EXPECT_EQ(messages[1]["result"]["content"][0]["text"], "hi");
  }
  h.channel().end_input(Incoming::Kind::Eof);  // the runner's SIGTERM once the client exited
  EXPECT_EQ(h.finish(), "eof");
  return h.records();
}

TEST(HttpServerModern, ASilentClientMeetsEveryCheckAndGetAndDeleteAreRefused) {
  Harness h(modern_session_script(), "streamable-http", Json::object(), {}, "2026-07-28");
  const auto records = run_modern_session(h, /*pong_it=*/false);
  EXPECT_EQ(find_check(records, "discovered")["outcome"], "met");
  EXPECT_EQ(find_check(records, "no-response")["outcome"], "met");
  const auto get = find_check(records, "http:modern-post-only");
  EXPECT_EQ(get["level"], "INFO") << get.dump();
  EXPECT_EQ(get["outcome"], "broken") << get.dump();
  for (const auto* id : {"http:protocol-version", "http:mcp-method", "http:mcp-name",
                         "http:session-id", "http:before-initialize", "modern:request-meta"})
    EXPECT_TRUE(find_check(records, id).is_null()) << id << ": " << find_check(records, id).dump();
  for (const auto& r : records_of(records, "http")) EXPECT_FALSE(r.contains("session")) << r.dump();
}

TEST(HttpServerModern, APongPostedIntoTheSessionIsAcceptedAndFailsNoResponse) {
  Harness h(modern_session_script(), "streamable-http", Json::object(), {}, "2026-07-28");
  const auto records = run_modern_session(h, /*pong_it=*/true);
  const auto check = find_check(records, "no-response");
  EXPECT_EQ(check["outcome"], "broken") << check.dump();
  // Only the script judges it: no transport rule fails on the POSTed response.
  for (const auto* id : {"transport:valid-message", "http:protocol-version", "http:mcp-method"})
    EXPECT_TRUE(find_check(records, id).is_null()) << id << ": " << find_check(records, id).dump();
}

TEST(HttpServerModern, MissingOrMismatchedHeadersAreRecordedAndTheRequestAnswered) {
  Harness h(
      Json::array(
          {{{"discover", Json::object()}},
           {{"expect", {{"method", "tools/list"}}}, {"as", "list"}, {"check", check_def("list")}},
           {{"respond", "list"}, {"default", true}},
           {{"serve_defaults", Json::object()}}}),
      "streamable-http", Json::object(), {}, "2026-07-28");
  Client c(h.port());
  // The probe without any request metadata header, the list with a wrong method and version.
  auto probe = c.post(modern_request(0, "server/discover"), headers());
  ASSERT_TRUE(probe);
  EXPECT_EQ(probe->status, 200);
  auto list = c.post(modern_request(1, "tools/list"), {{"Accept", kAcceptBoth.get<std::string>()},
                                                       {"MCP-Protocol-Version", "2025-11-25"},
                                                       {"Mcp-Method", "tools/call"}});
  ASSERT_TRUE(list);
  EXPECT_EQ(list->status, 200);
  EXPECT_TRUE(Json::parse(list->body, nullptr, false)["result"].contains("tools")) << list->body;
  h.channel().end_input(Incoming::Kind::Eof);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  const auto version = find_check(records, "http:protocol-version");
  EXPECT_EQ(version["outcome"], "broken") << version.dump();
  EXPECT_EQ(version["level"], "MUST");
  EXPECT_NE(version["actual"].get<std::string>().find("no MCP-Protocol-Version"), std::string::npos)
      << version.dump();
  const auto method = find_check(records, "http:mcp-method");
  EXPECT_EQ(method["outcome"], "broken") << method.dump();
  // tools/list and server/discover mirror no name.
  EXPECT_TRUE(find_check(records, "http:mcp-name").is_null());
  std::size_t mismatches = 0;
  for (const auto& r : records_of(records, "event"))
    if (r.value("what", "").find("but the body's") != std::string::npos) ++mismatches;
  EXPECT_EQ(mismatches, 2u);  // the version and the method of tools/list, both noted
}

TEST(HttpServerModern, AnInitializeStartsALegacySessionAsADualEraServerDoes) {
  Harness h(Json::array({{{"discover", Json::object()}}}), "streamable-http", Json::object(), {},
            "2026-07-28");
  Client c(h.port());
  auto init = c.post(initialize_request("2025-11-25"), headers());
  ASSERT_TRUE(init);
  EXPECT_EQ(init->status, 200);
  const auto session = init->get_header_value("Mcp-Session-Id");
  EXPECT_FALSE(session.empty());
  // From now on the session-based form: the GET stream exists.
  StreamReader get(h.port(), "GET", "/mcp",
                   {{"Accept", "text/event-stream"},
                    {"Mcp-Session-Id", session},
                    {"MCP-Protocol-Version", "2025-11-25"}});
  EXPECT_EQ(get.status(), 200);
  h.channel().stop();
  h.finish();
  EXPECT_FALSE(records_of(h.records(), "unsupported").empty());
}

// A 2026-07-28 client that still pings: "If the server does not implement the requested RPC
// method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601".
TEST(HttpServerModern, AClientPingIsAnswered404WithMethodNotFound) {
  Harness h(Json::array({{{"discover", Json::object()}}, {{"serve_defaults", Json::object()}}}),
            "streamable-http", Json::object(), {}, "2026-07-28");
  Client c(h.port());
  const auto discover = modern_request(0, "server/discover");
  auto probe = c.post(discover, modern_headers(discover));
  ASSERT_TRUE(probe);
  EXPECT_EQ(probe->status, 200);
  const auto ping = modern_request(1, "ping");
  auto answer = c.post(ping, modern_headers(ping));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 404);
  EXPECT_EQ(Json::parse(answer->body)["error"]["code"], -32601) << answer->body;
  const auto list = modern_request(2, "tools/list");
  auto listed = c.post(list, modern_headers(list));
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->status, 200);
  h.channel().end_input(Incoming::Kind::Eof);
  EXPECT_EQ(h.finish(), "eof");
}

}  // namespace
}  // namespace mcpping
