// A verdict is about its case's subject: a client with one defect outside the ping subject
// fails the checks of that defect and nothing else, across the whole catalogue of a transport
// (data/isolation.json), at the row's revision. Informational findings are allowed; FAIL and
// NON_STRICT must be exactly the listed checks.
#include <gtest/gtest.h>

#include <set>

#include "selftest_support.hpp"

namespace mcpping::selftest {
namespace {

struct IsolationRow {
  std::string name, why, fault, transport;
  std::vector<std::string> fails;  // short check ids (any case) or case:check ids
  std::string revision;            // the run's --revision; empty for the default
};

void PrintTo(const IsolationRow& row, std::ostream* out) { *out << row.name; }

std::vector<IsolationRow> load_isolation_rows() {
  const auto rows = nlohmann::json::parse(read_text(MCP_PING_SELFTEST_DATA "/isolation.json"));
  std::vector<IsolationRow> out;
  for (const auto& row : rows) {
    out.push_back({row["name"], row["why"], row["fault"], row["transport"],
                   row["fails"].get<std::vector<std::string>>(), row.value("revision", "")});
  }
  return out;
}

bool listed(const IsolationRow& row, const std::string& full_id, const std::string& short_id) {
  for (const auto& f : row.fails)
    if (f == full_id || f == short_id) return true;
  return false;
}

class OneDefect : public ::testing::TestWithParam<IsolationRow> {};

TEST_P(OneDefect, FailsItsOwnChecksOnly) {
  const IsolationRow& row = GetParam();
  std::vector<std::string> options = {"--transport", row.transport};
  if (!row.revision.empty()) options.insert(options.end(), {"--revision", row.revision});
  const RunnerRun run =
      run_runner(options, {MCP_PING_BROKEN_CLIENT, "--fault", row.fault}, row.name);
  const auto results =
      nlohmann::json::parse(read_text(run.report_dir / "results.json"), nullptr, false);
  ASSERT_TRUE(results.is_object()) << run.output;
  std::set<std::string> matched;
  for (const auto& c : results["cases"]) {
    EXPECT_NE(c["verdict"], "ERROR") << c["case"] << ": " << c.dump(2);
    for (const auto& check : c["checks"]) {
      const std::string verdict = check["verdict"];
      if (verdict != "FAIL" && verdict != "NON_STRICT") continue;
      const std::string full_id = check["id"];
      const std::string short_id = full_id.substr(full_id.find(':') + 1);
      if (listed(row, full_id, short_id)) {
        matched.insert(full_id == short_id ? full_id : short_id);
        matched.insert(full_id);
        continue;
      }
      ADD_FAILURE() << row.why << ": " << full_id << " is " << verdict
                    << " although it is not about the defect\n  actual: " << check["actual"];
    }
  }
  for (const auto& f : row.fails) {
    EXPECT_TRUE(matched.count(f)) << row.why << ": " << f << " never failed\n" << run.output;
  }
}

INSTANTIATE_TEST_SUITE_P(SelfTests, OneDefect, ::testing::ValuesIn(load_isolation_rows()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace mcpping::selftest
