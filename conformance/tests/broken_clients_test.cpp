// Every check must be able to fail: each deliberately broken client must be caught by the
// case and check meant for its defect (data/self_tests.json).
#include <gtest/gtest.h>

#include "selftest_support.hpp"

namespace mcpping::selftest {
namespace {

struct BrokenClient {
  std::string name, fault, transport, case_id, check, verdict;
  std::vector<std::string> args;  // more driver arguments, e.g. --protocol-version 2025-03-26
  std::string revision;           // the run's --revision, when not the default
  bool schemas = false;           // the run validates client messages (--schemas)
};

void PrintTo(const BrokenClient& client, std::ostream* out) { *out << client.name; }

std::vector<BrokenClient> load_broken_clients() {
  const auto rows = nlohmann::json::parse(read_text(MCP_PING_SELFTEST_DATA "/self_tests.json"));
  std::vector<BrokenClient> out;
  for (const auto& row : rows) {
    out.push_back({row["name"], row["fault"], row["transport"], row["case"], row["check"],
                   row["verdict"], row.value("args", std::vector<std::string>{}),
                   row.value("revision", ""), row.value("schemas", false)});
  }
  return out;
}

class BrokenClientIsCaught : public ::testing::TestWithParam<BrokenClient> {};

TEST_P(BrokenClientIsCaught, ByItsIntendedCheck) {
  const BrokenClient& row = GetParam();
  std::vector<std::string> driver = {MCP_PING_BROKEN_CLIENT};
  if (!row.fault.empty()) driver.insert(driver.end(), {"--fault", row.fault});
  driver.insert(driver.end(), row.args.begin(), row.args.end());
  std::vector<std::string> options = {"--scenario", row.case_id, "--transport", row.transport};
  if (!row.revision.empty()) options.insert(options.end(), {"--revision", row.revision});
  if (row.schemas) {
    if (test_schemas().empty()) GTEST_SKIP() << "no specification schemas beside the checkout";
    options.insert(options.end(), {"--schemas", test_schemas()});
  }
  const RunnerRun run = run_runner(options, driver);
  auto verdict = case_verdict(run, row.transport, row.case_id);
  if (!verdict.is_object()) {
    // A case decided before it ran (UNSUPPORTED by the revision) has no evidence folder.
    const auto results =
        nlohmann::json::parse(read_text(run.report_dir / "results.json"), nullptr, false);
    if (results.is_object()) {
      for (const auto& c : results["cases"])
        if (c["case"] == row.case_id && c["transport"] == row.transport) verdict = c;
    }
  }
  ASSERT_TRUE(verdict.is_object()) << run.output;
  if (row.check.empty()) {
    // A verdict of the whole case (UNSUPPORTED: the client lacks what it MAY lack).
    EXPECT_EQ(verdict["verdict"], row.verdict) << verdict.dump(2) << "\n" << run.output;
    EXPECT_EQ(run.outcome.exit_code, 0) << run.output;
    return;
  }
  const std::string full_id = row.case_id + ":" + row.check;
  if (row.verdict == "NOT_JUDGED") {
    // Its premise never happened: listed apart, with why, and no part of the verdict.
    const auto& listed = verdict.value("not_judged", nlohmann::json::array());
    EXPECT_TRUE(std::any_of(listed.begin(), listed.end(),
                            [&](const nlohmann::json& c) { return c["id"] == full_id; }))
        << full_id << " is not listed as not judged in\n"
        << verdict.dump(2);
    return;
  }
  const auto& checks = verdict["checks"];
  const auto it = std::find_if(checks.begin(), checks.end(),
                               [&](const nlohmann::json& c) { return c["id"] == full_id; });
  ASSERT_NE(it, checks.end()) << "no check " << full_id << " in\n" << verdict.dump(2);
  EXPECT_EQ((*it)["verdict"], row.verdict) << verdict.dump(2) << "\n" << run.output;
  // The runner's exit status follows: FAIL fails the run, NON_STRICT only under --strict.
  const int expected_exit = row.verdict == "FAIL" ? 1 : 0;
  EXPECT_EQ(run.outcome.exit_code, expected_exit) << run.output;
  if (row.verdict != "PASS") {
    // The evidence names the check and quotes the transcript; a finding of the run is named
    // once, by its id and transport.
    const bool finding = it->value("kind", "") == "collateral";
    const auto named = finding ? row.check + " (" + row.transport + ")" : full_id;
    EXPECT_NE(run.output.find(named), std::string::npos) << run.output;
  }
}

std::string broken_client_name(const ::testing::TestParamInfo<BrokenClient>& info) {
  std::string name = (info.param.fault.empty() ? std::string("no_fault") : info.param.fault) + "_" +
                     info.param.transport + "_" + std::to_string(info.index);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(SelfTests, BrokenClientIsCaught,
                         ::testing::ValuesIn(load_broken_clients()), broken_client_name);

}  // namespace
}  // namespace mcpping::selftest
