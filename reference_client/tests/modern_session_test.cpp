#include "modern_session.hpp"

#include "fake_transport.hpp"
#include "mcp/client.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <future>

namespace mcp {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::FakeServer;
using test::FakeTransport;
using test::LogCapture;

TEST(ModernSession, OnlyModernVersionsAreModern) {
  EXPECT_TRUE(modern::is_modern_version("2026-07-28"));
  EXPECT_FALSE(modern::is_modern_version("2025-11-25"));
  EXPECT_FALSE(modern::is_modern_version(""));
}

TEST(ModernSession, RequestMetaIsAddedAndOtherMetaKeysAreKept) {
  const modern::RequestMeta meta{"2026-07-28", json::object(), {{"name", "c"}, {"version", "1"}}};
  const json params =
      modern::with_request_meta({{"name", "echo"}, {"_meta", {{"progressToken", 5}}}}, meta);
  EXPECT_EQ(params["name"], "echo");
  EXPECT_EQ(params["_meta"]["progressToken"], 5);
  EXPECT_EQ(params["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  EXPECT_EQ(params["_meta"]["io.modelcontextprotocol/clientCapabilities"], json::object());
  EXPECT_EQ(params["_meta"]["io.modelcontextprotocol/clientInfo"]["name"], "c");
  // Null params become an object; no clientInfo when there is none to send.
  const json bare = modern::with_request_meta(json(), {"2026-07-28", json::object(), json()});
  EXPECT_FALSE(bare["_meta"].contains("io.modelcontextprotocol/clientInfo"));
}

TEST(ModernSession, ProbeErrorsAreReadPerTheBackwardCompatibilityRules) {
  EXPECT_EQ(modern::probe_outcome(Error::rpc(modern::unsupported_protocol_version, "x")),
            modern::ProbeOutcome::modern);
  EXPECT_EQ(modern::probe_outcome(Error::rpc(rpc_code::method_not_found, "x")),
            modern::ProbeOutcome::legacy);
  EXPECT_EQ(modern::probe_outcome(Error::rpc(rpc_code::invalid_params, "x")),
            modern::ProbeOutcome::legacy);
  EXPECT_EQ(modern::probe_outcome(Error(errc::timeout, "x")), modern::ProbeOutcome::legacy);
  EXPECT_FALSE(modern::probe_outcome(Error(errc::connection_closed, "x")));
}

TEST(ModernSession, ChoosesThePreferredVersionElseAnotherModernOne) {
  EXPECT_EQ(modern::choose_version(json::array({"2026-07-28"}), "2026-07-28"), "2026-07-28");
  EXPECT_EQ(modern::choose_version(json::array({"2099-01-01", "2026-07-28"}), "2099-01-01"),
            "2026-07-28");
  EXPECT_FALSE(modern::choose_version(json::array({"2025-11-25"}), "2026-07-28"));
  EXPECT_FALSE(modern::choose_version(json(), "2026-07-28"));
}

json discover_result() {
  return {{"resultType", "complete"},
          {"supportedVersions", json::array({"2026-07-28"})},
          {"capabilities", {{"tools", json::object()}}}};
}

class ModernClientTest : public ::testing::Test {
 protected:
  std::unique_ptr<Client> make_client() {
    ClientOptions options;
    options.protocol_version = "2026-07-28";
    options.client_info = {"tester", "9"};
    options.logger = log.logger();
    options.request_timeout = 10s;
    options.keepalive.interval = 50ms;  // must stay off: no ping in a modern session
    return std::make_unique<Client>(std::make_unique<FakeTransport>(server), std::move(options));
  }

  std::shared_ptr<FakeServer> server = std::make_shared<FakeServer>();
  LogCapture log;
};

TEST_F(ModernClientTest, ConnectProbesWithDiscoverAndEveryRequestCarriesMeta) {
  auto client = make_client();
  auto connecting = std::async(std::launch::async, [&] { return client->connect(); });
  const auto probe = server->wait_sent(0);
  ASSERT_TRUE(probe);
  EXPECT_EQ((*probe)["method"], "server/discover");
  EXPECT_EQ((*probe)["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  server->inject({{"jsonrpc", "2.0"}, {"id", (*probe)["id"]}, {"result", discover_result()}});
  EXPECT_EQ(connecting.get(), discover_result());
  EXPECT_EQ(server->protocol_versions(), std::vector<std::string>{"2026-07-28"});
  EXPECT_EQ(server->sent_count(), 1u);  // no notifications/initialized
  EXPECT_TRUE(log.contains("keepalive pings are off"));

  server->set_responder([](const json& sent) -> std::optional<json> {
    return json{{"jsonrpc", "2.0"}, {"id", sent["id"]}, {"result", {{"tools", json::array()}}}};
  });
  client->list_tools();
  const auto list = server->wait_sent(1);
  ASSERT_TRUE(list);
  EXPECT_EQ((*list)["method"], "tools/list");
  const auto& meta = (*list)["params"]["_meta"];
  EXPECT_EQ(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  EXPECT_TRUE(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
  EXPECT_EQ(meta["io.modelcontextprotocol/clientInfo"],
            json({{"name", "tester"}, {"version", "9"}}));
}

TEST_F(ModernClientTest, AServerRequestGetsNoResponseAndThePendingCallGoesOn) {
  auto client = make_client();
  server->set_responder([](const json& sent) -> std::optional<json> {
    if (sent["method"] == "server/discover")
      return json{{"jsonrpc", "2.0"}, {"id", sent["id"]}, {"result", discover_result()}};
    return std::nullopt;
  });
  client->connect();
  auto call = std::async(std::launch::async, [&] { return client->call_tool("echo", {}); });
  const auto request = server->wait_sent(1);
  ASSERT_TRUE(request);
  server->inject({{"jsonrpc", "2.0"}, {"id", (*request)["id"]}, {"method", "ping"}});
  server->inject({{"jsonrpc", "2.0"}, {"id", "x"}, {"method", "x/unknown"}});
  server->inject({{"jsonrpc", "2.0"},
                  {"id", (*request)["id"]},
                  {"result", {{"resultType", "complete"}, {"content", json::array()}}}});
  EXPECT_EQ(call.get()["resultType"], "complete");
  EXPECT_EQ(server->sent_count(), 2u);  // the probe and the call: nothing answered the server
  EXPECT_TRUE(log.contains("modern session"));
}

TEST_F(ModernClientTest, AnotherErrorToTheProbeFallsBackToInitialize) {
  auto client = make_client();
  auto connecting = std::async(std::launch::async, [&] { return client->connect(); });
  const auto probe = server->wait_sent(0);
  ASSERT_TRUE(probe);
  server->inject({{"jsonrpc", "2.0"},
                  {"id", (*probe)["id"]},
                  {"error", {{"code", -32601}, {"message", "Method not found"}}}});
  const auto initialize = server->wait_sent(1);
  ASSERT_TRUE(initialize);
  EXPECT_EQ((*initialize)["method"], "initialize");
  EXPECT_EQ((*initialize)["params"]["protocolVersion"], "2025-11-25");
  EXPECT_FALSE((*initialize)["params"].contains("_meta"));
  server->inject(
      {{"jsonrpc", "2.0"},
       {"id", (*initialize)["id"]},
       {"result", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}}}});
  EXPECT_EQ(connecting.get()["protocolVersion"], "2025-11-25");
  // A legacy session now: a server ping is answered.
  server->inject({{"jsonrpc", "2.0"}, {"id", "p"}, {"method", "ping"}});
  bool ponged = false;
  for (std::size_t i = 2; i < 4 && !ponged; ++i) {
    const auto sent = server->wait_sent(i, 2s);
    // value(), not a const operator[]: frame 2 may be notifications/initialized, which has
    // no id, and a const lookup of a missing key reads freed memory.
    ponged =
        sent && sent->value("id", json()) == "p" && sent->value("result", json()) == json::object();
  }
  EXPECT_TRUE(ponged);
}

TEST_F(ModernClientTest, UnsupportedVersionErrorWithNoSharedVersionFailsWithoutFallingBack) {
  auto client = make_client();
  auto connecting = std::async(std::launch::async, [&] { return client->connect(); });
  const auto probe = server->wait_sent(0);
  ASSERT_TRUE(probe);
  server->inject({{"jsonrpc", "2.0"},
                  {"id", (*probe)["id"]},
                  {"error",
                   {{"code", modern::unsupported_protocol_version},
                    {"message", "Unsupported protocol version"},
                    {"data", {{"supported", json::array({"2099-01-01"})}}}}}});
  try {
    connecting.get();
    FAIL() << "connect went on without a shared version";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::unsupported_protocol_version);
  }
  EXPECT_EQ(server->sent_count(), 1u);  // no initialize
}

}  // namespace
}  // namespace mcp
