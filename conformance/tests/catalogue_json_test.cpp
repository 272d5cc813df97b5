#include "conformance/catalogue_json.hpp"
#include "core/check_registry.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace mcpping {
namespace {

using Strings = std::vector<std::string>;

CheckDef check(const std::string& id, Level level, Strings transports = {}) {
  CheckDef def;
  def.id = id;
  def.level = level;
  def.spec = {"ping.respond-promptly"};
  def.transports = std::move(transports);
  return def;
}

Scenario json_scenario(const std::string& id, Strings transports,
                       std::vector<CheckDef> checks = {}) {
  Scenario s;
  s.id = id;
  s.title = "title of " + id;
  s.transports = std::move(transports);
  s.script_checks = std::move(checks);
  return s;
}

std::vector<Scenario> json_catalogue() {
  Scenario burst = json_scenario("ping/burst", {"stdio", "streamable-http"},
                                 {check("every-ping-answered-once", Level::Must),
                                  check("get-stream-pong", Level::Should, {"streamable-http"})});
  burst.exclusive = true;
  burst.revision_from = "2025-03-26";
  DriverCheck delivered;
  delivered.check = check("call-result-delivered", Level::Must);
  delivered.step = 1;
  burst.driver_checks.push_back(delivered);

  Scenario keepalive =
      json_scenario("client-ping/keepalive", {"stdio", "sse"},
                    {builtin_check("handshake"), check("pings-sent", Level::Info)});
  keepalive.deadline_kill = Level::Info;
  return {keepalive, burst, json_scenario("ping/idle", {"sse"}, {check("pong", Level::May)})};
}

const nlohmann::ordered_json& case_named(const nlohmann::ordered_json& doc, const std::string& id) {
  for (const auto& c : doc.at("cases")) {
    if (c.at("id") == id) return c;
  }
  throw std::out_of_range("no case " + id);
}

TEST(CatalogueJson, NamesTheKnownTransportsAndRevisions) {
  const auto doc = catalogue_json(json_catalogue());
  EXPECT_EQ(doc.at("format"), kCatalogueJsonFormat);
  EXPECT_EQ(doc.at("transports").get<Strings>(), known_transports());
  EXPECT_EQ(doc.at("revisions").get<Strings>(), known_revisions());
}

TEST(CatalogueJson, ListsEveryCaseInCatalogueOrderWithItsSettings) {
  const auto doc = catalogue_json(json_catalogue());
  ASSERT_EQ(doc.at("cases").size(), 3u);
  EXPECT_EQ(doc["cases"][0]["id"], "client-ping/keepalive");
  EXPECT_EQ(doc["cases"][2]["id"], "ping/idle");

  const auto& burst = case_named(doc, "ping/burst");
  EXPECT_EQ(burst.at("area"), "ping");
  EXPECT_EQ(burst.at("title"), "title of ping/burst");
  EXPECT_EQ(burst.at("transports").get<Strings>(), (Strings{"stdio", "streamable-http"}));
  EXPECT_EQ(burst.at("revisions").at("from"), "2025-03-26");
  EXPECT_EQ(burst.at("revisions").at("until"), "2025-11-25");
  EXPECT_EQ(burst.at("exclusive"), true);
  EXPECT_EQ(burst.at("deadline_kill"), "MUST");

  const auto& keepalive = case_named(doc, "client-ping/keepalive");
  EXPECT_EQ(keepalive.at("area"), "client-ping");
  EXPECT_EQ(keepalive.at("exclusive"), false);
  EXPECT_EQ(keepalive.at("deadline_kill"), "INFO");
}

TEST(CatalogueJson, ChecksCarryTheirKindLevelAndTransports) {
  const auto doc = catalogue_json(json_catalogue());
  const auto& checks = case_named(doc, "ping/burst").at("checks");
  ASSERT_EQ(checks.size(), 3u);
  // Script checks first, in script order, then driver checks.
  EXPECT_EQ(checks[0].at("id"), "every-ping-answered-once");
  EXPECT_EQ(checks[0].at("kind"), "script");
  EXPECT_EQ(checks[0].at("level"), "MUST");
  EXPECT_EQ(checks[0].at("transports").get<Strings>(), (Strings{"stdio", "streamable-http"}));
  EXPECT_EQ(checks[0].at("spec").get<Strings>(), Strings{"ping.respond-promptly"});
  EXPECT_EQ(checks[0].at("implicit"), false);
  EXPECT_FALSE(checks[0].contains("step"));
  // A check whose step runs on some transports only applies to those.
  EXPECT_EQ(checks[1].at("id"), "get-stream-pong");
  EXPECT_EQ(checks[1].at("level"), "SHOULD");
  EXPECT_EQ(checks[1].at("transports").get<Strings>(), Strings{"streamable-http"});
  EXPECT_EQ(checks[2].at("id"), "call-result-delivered");
  EXPECT_EQ(checks[2].at("kind"), "driver");
  EXPECT_EQ(checks[2].at("step"), 1);
  EXPECT_EQ(checks[2].at("implicit"), false);
  EXPECT_EQ(checks[2].at("transports").get<Strings>(), (Strings{"stdio", "streamable-http"}));
}

TEST(CatalogueJson, LevelIsTheMostDemandingOfTheChecks) {
  EXPECT_EQ(highest_level(json_scenario("a", {"stdio"})), Level::Info);
  EXPECT_EQ(highest_level(json_scenario("a", {"stdio"}, {check("x", Level::Info)})), Level::Info);
  // MAY outranks INFO although it comes after it in the enum.
  EXPECT_EQ(highest_level(
                json_scenario("a", {"stdio"}, {check("x", Level::May), check("y", Level::Info)})),
            Level::May);
  EXPECT_EQ(highest_level(
                json_scenario("a", {"stdio"}, {check("x", Level::May), check("y", Level::Should)})),
            Level::Should);
  // Driver checks count too.
  Scenario with_driver_check = json_scenario("a", {"stdio"}, {check("x", Level::Should)});
  with_driver_check.driver_checks.push_back({check("y", Level::Must), 0, nullptr});
  EXPECT_EQ(highest_level(with_driver_check), Level::Must);

  // The mock server's own checks (the handshake) say nothing of what the case is about.
  EXPECT_EQ(highest_level(json_scenario("a", {"stdio"},
                                        {builtin_check("handshake"), check("x", Level::Info)})),
            Level::Info);
  EXPECT_EQ(highest_level(json_scenario("a", {"stdio"}, {builtin_check("handshake")})),
            Level::Info);

  const auto doc = catalogue_json(json_catalogue());
  EXPECT_EQ(case_named(doc, "ping/burst").at("level"), "MUST");
  EXPECT_EQ(case_named(doc, "client-ping/keepalive").at("level"), "INFO");
  EXPECT_EQ(case_named(doc, "ping/idle").at("level"), "MAY");
}

TEST(CatalogueJson, TheMockServersOwnChecksAreListedAsImplicit) {
  const auto doc = catalogue_json(json_catalogue());
  const auto& checks = case_named(doc, "client-ping/keepalive").at("checks");
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].at("id"), "handshake");
  EXPECT_EQ(checks[0].at("level"), "MUST");
  EXPECT_EQ(checks[0].at("implicit"), true);
  EXPECT_EQ(checks[1].at("implicit"), false);
}

TEST(CatalogueJson, TransportKeepsTheCasesThatRunOnIt) {
  const auto doc = catalogue_json(json_catalogue(), {{}, "sse"});
  ASSERT_EQ(doc.at("cases").size(), 2u);
  EXPECT_EQ(doc["cases"][0]["id"], "client-ping/keepalive");
  EXPECT_EQ(doc["cases"][1]["id"], "ping/idle");
  // The cases themselves are unchanged: every transport they run on, every check.
  EXPECT_EQ(doc["cases"][0]["transports"].get<Strings>(), (Strings{"stdio", "sse"}));
  // The catalogue-wide lists do not depend on the selection.
  EXPECT_EQ(doc.at("transports").get<Strings>(), known_transports());
}

TEST(CatalogueJson, GlobsSelectCasesAsRunDoes) {
  const auto doc = catalogue_json(json_catalogue(), {{"ping/*"}, std::nullopt});
  ASSERT_EQ(doc.at("cases").size(), 2u);
  EXPECT_EQ(doc["cases"][0]["id"], "ping/burst");
  EXPECT_EQ(doc["cases"][1]["id"], "ping/idle");

  const auto both = catalogue_json(json_catalogue(), {{"*keepalive", "ping/idle"}, "sse"});
  ASSERT_EQ(both.at("cases").size(), 2u);

  const std::vector<Scenario> scenarios = json_catalogue();
  const auto selected = select_scenarios(scenarios, {{"ping/burst"}, "stdio"});
  ASSERT_EQ(selected.size(), 1u);
  EXPECT_EQ(selected[0]->id, "ping/burst");
}

TEST(CatalogueJson, AGlobThatMatchesNothingIsRefused) {
  try {
    catalogue_json(json_catalogue(), {{"ping/*", "pnig/*"}, std::nullopt});
    ADD_FAILURE() << "accepted a glob that matches no case";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'pnig/*' matches no case"), std::string::npos)
        << e.what();
  }
  // A transport no case runs on is no error: the list is empty.
  EXPECT_TRUE(catalogue_json(json_catalogue(), {{"ping/burst"}, "sse"}).at("cases").empty());
}

}  // namespace
}  // namespace mcpping
