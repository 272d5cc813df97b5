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
  // A legacy session knows no server/discover.
  answer = default_answer(Json::parse(R"({"jsonrpc":"2.0","id":5,"method":"server/discover"})"), d);
  EXPECT_EQ((*answer)["error"]["code"], Json(-32601));
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
