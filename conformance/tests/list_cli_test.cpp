// `list --json` through the real CLI, on the suite's own fixtures: the document
// mcp_ping_conformance_add_tests() registers its tests from (docs/ctest.md).
#include <algorithm>
#include <set>
#include <sstream>
#include <utility>

#include <gtest/gtest.h>

#include "selftest_support.hpp"

namespace mcpping::selftest {
namespace {

struct ListRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `mcp-ping-conformance list <options>`.
ListRun run_list(const std::vector<std::string>& options, const std::string& name) {
  const auto dir = fresh_dir(name);
  SpawnSpec spec;
  spec.argv = {MCP_PING_RUNNER, "list"};
  spec.argv.insert(spec.argv.end(), options.begin(), options.end());
  spec.stdout_file = dir / "list.stdout";
  spec.stderr_file = dir / "list.stderr";
  ListRun run;
  run.exit_code = run_child(spec).exit_code;
  run.out = read_text(spec.stdout_file);
  run.err = read_text(spec.stderr_file);
  return run;
}

nlohmann::json parse_json(const ListRun& run) {
  auto doc = nlohmann::json::parse(run.out, nullptr, false);
  return doc.is_discarded() ? nlohmann::json() : doc;
}

using Pairs = std::set<std::pair<std::string, std::string>>;  // case id, transport

// The (case, transport) pairs of the plain `list` output: "<id> <transport> <title>".
Pairs text_pairs(const std::string& text) {
  Pairs pairs;
  std::istringstream lines(text);
  std::string id;
  std::string transport;
  std::string rest;
  while (lines >> id >> transport && std::getline(lines, rest)) pairs.emplace(id, transport);
  return pairs;
}

Pairs json_pairs(const nlohmann::json& doc) {
  Pairs pairs;
  for (const auto& c : doc["cases"]) {
    for (const auto& transport : c["transports"]) pairs.emplace(c["id"], transport);
  }
  return pairs;
}

TEST(ListCli, JsonDescribesTheSameCasesAsTheTextList) {
  const ListRun json = run_list({"--json"}, "json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = parse_json(json);
  ASSERT_TRUE(doc.is_object()) << json.out;
  EXPECT_EQ(doc["format"], 1);
  EXPECT_EQ(doc["transports"], (nlohmann::json{"stdio", "streamable-http", "sse"}));
  EXPECT_TRUE(doc["revisions"].is_array() && !doc["revisions"].empty());

  const ListRun text = run_list({}, "text");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(json_pairs(doc), text_pairs(text.out));

  for (const auto& c : doc["cases"]) {
    EXPECT_TRUE(c["title"].is_string()) << c["id"];
    EXPECT_TRUE(c["exclusive"].is_boolean()) << c["id"];
    EXPECT_TRUE(c["revisions"]["from"].is_string() && c["revisions"]["until"].is_string())
        << c["id"];
    EXPECT_FALSE(c["checks"].empty()) << c["id"];
    for (const auto& check : c["checks"]) {
      EXPECT_TRUE(check["kind"] == "script" || check["kind"] == "driver") << c["id"];
      EXPECT_TRUE(check["level"].is_string()) << c["id"] << ":" << check["id"];
    }
  }
}

TEST(ListCli, JsonKnowsWhichCasesRunAlone) {
  const nlohmann::json doc = parse_json(run_list({"--json", "--scenario", "ping/burst"}, "burst"));
  ASSERT_EQ(doc["cases"].size(), 1u) << doc;
  EXPECT_EQ(doc["cases"][0]["id"], "ping/burst");
  EXPECT_EQ(doc["cases"][0]["exclusive"], true);
  EXPECT_EQ(doc["cases"][0]["level"], "MUST");

  // The level is that of the checks the fixture declares, not of the handshake.
  const nlohmann::json keepalive =
      parse_json(run_list({"--json", "--scenario", "client-ping/keepalive"}, "keepalive"));
  ASSERT_EQ(keepalive["cases"].size(), 1u) << keepalive;
  EXPECT_EQ(keepalive["cases"][0]["level"], "INFO");
}

TEST(ListCli, TransportAndScenarioSelectTheCases) {
  const ListRun run =
      run_list({"--json", "--transport", "sse", "--scenario", "ping/*"}, "selected");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json doc = parse_json(run);
  ASSERT_FALSE(doc["cases"].empty()) << run.out;
  for (const auto& c : doc["cases"]) {
    EXPECT_EQ(c["id"].get<std::string>().rfind("ping/", 0), 0u) << c["id"];
    EXPECT_NE(std::find(c["transports"].begin(), c["transports"].end(), "sse"),
              c["transports"].end())
        << c["id"];
  }
}

TEST(ListCli, AGlobThatMatchesNothingIsAUsageError) {
  const ListRun run = run_list({"--json", "--scenario", "pnig/*"}, "typo");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--scenario 'pnig/*' matches no case"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

}  // namespace
}  // namespace mcpping::selftest
