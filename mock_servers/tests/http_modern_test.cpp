#include "http/http_modern.hpp"
#include "core/check_registry.hpp"

#include <gtest/gtest.h>

#include <fstream>

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

}  // namespace
}  // namespace mcpping
