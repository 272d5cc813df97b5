#include "engine/default_server.hpp"

#include <gtest/gtest.h>

#include "core/pattern.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

ServerDefaults defaults() {
  return server_defaults_from(test::make_resolved(Json::parse(R"([{"serve_defaults":{}}])")));
}

TEST(DefaultServer, InitializeOffersTheClientsKnownVersion) {
  const auto d = defaults();
  auto answer = default_answer(
      Json::parse(
          R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}})"),
      d);
  ASSERT_TRUE(answer);
  EXPECT_EQ((*answer)["id"], Json(0));
  EXPECT_EQ((*answer)["result"]["protocolVersion"], Json("2025-03-26"));
  EXPECT_EQ((*answer)["result"]["serverInfo"]["name"], Json("mcp-ping-conformance-mock"));
  answer = default_answer(
      Json::parse(
          R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01"}})"),
      d);
  EXPECT_EQ((*answer)["result"]["protocolVersion"], Json(d.revision));
}

TEST(DefaultServer, ToolsPingAndUnknown) {
  const auto d = defaults();
  auto answer =
      default_answer(Json::parse(R"({"jsonrpc":"2.0","id":"x","method":"tools/list"})"), d);
  EXPECT_EQ((*answer)["result"]["tools"][0]["name"], Json("echo"));
  answer = default_answer(
      Json::parse(
          R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"n-1"}}})"),
      d);
  EXPECT_EQ((*answer)["result"], Json::parse(R"({"content":[{"type":"text","text":"n-1"}]})"));
  answer = default_answer(
      Json::parse(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}})"), d);
  EXPECT_EQ((*answer)["error"]["code"], Json(-32602));
  answer = default_answer(Json::parse(R"({"jsonrpc":"2.0","id":4,"method":"ping"})"), d);
  EXPECT_EQ((*answer)["result"], Json::object());
  answer = default_answer(Json::parse(R"({"jsonrpc":"2.0","id":5,"method":"x/unknown"})"), d);
  EXPECT_EQ((*answer)["error"]["code"], Json(-32601));
  EXPECT_TRUE(same_json((*answer)["id"], Json(5)));
}

TEST(DefaultServer, NotificationsAndResponsesGetNothing) {
  const auto d = defaults();
  EXPECT_FALSE(
      default_answer(Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"), d));
  EXPECT_FALSE(default_answer(Json::parse(R"({"jsonrpc":"2.0","id":1,"result":{}})"), d));
}

TEST(DefaultServer, AModernSessionHasNoPingNorInitializeAndAnswersDiscover) {
  const auto d = defaults();
  const auto modern = Era::Modern;
  auto answer =
      default_answer(Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"), d, modern);
  EXPECT_EQ((*answer)["error"]["code"], Json(-32601));
  answer =
      default_answer(Json::parse(R"({"jsonrpc":"2.0","id":2,"method":"initialize"})"), d, modern);
  EXPECT_EQ((*answer)["error"]["code"], Json(-32601));
  answer = default_answer(Json::parse(R"({"jsonrpc":"2.0","id":3,"method":"server/discover"})"), d,
                          modern);
  EXPECT_EQ((*answer)["result"]["supportedVersions"], Json::array({"2026-07-28"}));
  answer =
      default_answer(Json::parse(R"({"jsonrpc":"2.0","id":4,"method":"tools/list"})"), d, modern);
  EXPECT_EQ((*answer)["result"]["resultType"], Json("complete"));
  EXPECT_EQ((*answer)["result"]["tools"], d.tools);
  EXPECT_EQ((*answer)["result"]["ttlMs"], Json(0));  // a 2026-07-28 ListToolsResult caches
  // A legacy session knows no server/discover.
  answer = default_answer(Json::parse(R"({"jsonrpc":"2.0","id":5,"method":"server/discover"})"), d);
  EXPECT_EQ((*answer)["error"]["code"], Json(-32601));
}

TEST(DefaultServer, OtherFeaturesAreAnsweredWhenTheirCapabilityIsDeclared) {
  auto d = defaults();
  const auto answer = [&](const std::string& method) {
    return *default_answer(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}}, d);
  };
  for (const auto* method : {"resources/list", "resources/templates/list", "prompts/list",
                             "completion/complete", "logging/setLevel"})
    EXPECT_EQ(answer(method)["error"]["code"], Json(-32601)) << method;
  d.capabilities = Json::parse(R"({"tools":{},"resources":{},"prompts":{},"completions":{},
                                   "logging":{}})");
  EXPECT_EQ(answer("resources/list")["result"], Json::parse(R"({"resources":[]})"));
  EXPECT_EQ(answer("resources/templates/list")["result"],
            Json::parse(R"({"resourceTemplates":[]})"));
  EXPECT_EQ(answer("prompts/list")["result"], Json::parse(R"({"prompts":[]})"));
  EXPECT_EQ(answer("completion/complete")["result"],
            Json::parse(R"({"completion":{"values":[]}})"));
  EXPECT_EQ(answer("logging/setLevel")["result"], Json::object());
}

TEST(DefaultServer, TheDefaultServiceIsForRequestsARealServerAnswersAtOnce) {
  for (const auto* method : {"ping", "tools/list", "resources/list", "resources/templates/list",
                             "prompts/list", "completion/complete", "logging/setLevel"})
    EXPECT_TRUE(default_service(method)) << method;
  for (const auto* method : {"tools/call", "initialize", "server/discover", "resources/read"})
    EXPECT_FALSE(default_service(method)) << method;
}

TEST(DefaultServer, InitializeNeverSelectsAModernVersion) {
  const auto result = initialize_result(
      Json::parse(
          R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2026-07-28"}})"),
      defaults());
  EXPECT_EQ(result["protocolVersion"], Json("2025-11-25"));
}

}  // namespace
}  // namespace mcpping
