#include "engine/host.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "engine/script.hpp"

namespace mcpping {
namespace {

std::optional<HostArgs> parse(std::vector<std::string> words) {
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  return parse_host_args(static_cast<int>(argv.size()), argv.data());
}

TEST(Host, TakesScriptAndEvidenceFolder) {
  const auto args = parse({"server", "--evidence-dir", "ev", "--script", "s.json"});
  ASSERT_TRUE(args);
  EXPECT_EQ(args->script, "s.json");
  EXPECT_EQ(args->evidence_dir, "ev");
}

TEST(Host, RefusesAnythingElse) {
  EXPECT_FALSE(parse({"server"}));
  EXPECT_FALSE(parse({"server", "--script", "s.json"}));
  EXPECT_FALSE(parse({"server", "--script"}));
  EXPECT_FALSE(parse({"server", "--script", "s", "--evidence-dir", "e", "--verbose"}));
}

TEST(Host, ScriptFileProblemsNameTheFile) {
  const auto dir = std::filesystem::temp_directory_path() / "mcp-ping-host-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "broken.json") << "{not json";
  std::ofstream(dir / "empty-object.json") << "{}";
  for (const auto& [file, why] : std::vector<std::pair<std::string, std::string>>{
           {(dir / "missing.json").string(), "cannot read the file"},
           {(dir / "broken.json").string(), "invalid JSON at line 1"},
           {(dir / "empty-object.json").string(), ""}}) {
    try {
      load_script(file);
      ADD_FAILURE() << file << " was accepted";
    } catch (const FixtureError& e) {
      EXPECT_EQ(e.file(), file);
      EXPECT_NE(e.reason().find(why), std::string::npos) << e.what();
    }
  }
}

// The latest the script can end: its start-up budget, then its case deadline from contact.
TEST(Host, LatestScriptEndComesFromTheTimeoutTable) {
  const auto resolved =
      Json::parse(R"({"timeouts":{"case_deadline_ms":60000,"startup_ms":30000}})");
  const auto before = Clock::now();
  const auto deadline = latest_script_end(resolved);
  EXPECT_GE(deadline - before, std::chrono::seconds(90));
  EXPECT_LT(deadline - before, std::chrono::seconds(91));
}

}  // namespace
}  // namespace mcpping
