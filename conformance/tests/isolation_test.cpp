// A verdict is about its case's subject: a client with one defect outside the ping subject
// fails the checks of that defect and nothing else, across the whole catalogue of a transport
// (data/isolation.json), at the row's revision. Informational findings are allowed; FAIL and
// NON_STRICT must be exactly the listed checks (when the row lists them). A row may also pin
// the run's findings, some cases' verdicts, the cases that are INFORMATIONAL, and checks that
// must be listed as not judged (their premise never happened).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>

#include "selftest_support.hpp"

namespace mcpping::selftest {
namespace {

struct IsolationRow {
  std::string name, why, fault, transport;
  std::optional<std::vector<std::string>> fails;  // short check ids (any case) or case:check
  std::string revision;                           // the run's --revision; empty for the default
  std::vector<std::string> client_args;           // more arguments for the broken client
  std::optional<std::set<std::string>> findings;  // exactly these findings (any verdict)
  std::map<std::string, std::string> verdicts;    // case id -> its verdict
  std::optional<std::set<std::string>> informational;  // exactly these cases INFORMATIONAL
  std::vector<std::string> not_judged;                 // case:check listed as not judged
  bool schemas = false;  // the run validates client messages (--schemas)
};

void PrintTo(const IsolationRow& row, std::ostream* out) { *out << row.name; }

std::vector<IsolationRow> load_isolation_rows() {
  const auto rows = nlohmann::json::parse(read_text(MCP_PING_SELFTEST_DATA "/isolation.json"));
  std::vector<IsolationRow> out;
  for (const auto& row : rows) {
    IsolationRow r;
    r.name = row["name"];
    r.why = row["why"];
    r.fault = row["fault"];
    r.transport = row["transport"];
    if (row.contains("fails")) r.fails = row["fails"].get<std::vector<std::string>>();
    r.revision = row.value("revision", "");
    r.client_args = row.value("client_args", std::vector<std::string>{});
    if (row.contains("findings")) r.findings = row["findings"].get<std::set<std::string>>();
    r.verdicts = row.value("verdicts", std::map<std::string, std::string>{});
    if (row.contains("informational"))
      r.informational = row["informational"].get<std::set<std::string>>();
    r.not_judged = row.value("not_judged", std::vector<std::string>{});
    r.schemas = row.value("schemas", false);
    out.push_back(std::move(r));
  }
  return out;
}

bool listed(const IsolationRow& row, const std::string& full_id, const std::string& short_id) {
  for (const auto& f : *row.fails)
    if (f == full_id || f == short_id) return true;
  return false;
}

// What the row pins beyond the failing checks: findings, verdicts, not-judged checks.
void expect_case_model(const IsolationRow& row, const nlohmann::json& results) {
  std::set<std::string> findings, informational, not_judged;
  for (const auto& f : results["findings"]) findings.insert(f["check"].get<std::string>());
  if (row.findings) {
    EXPECT_EQ(findings, *row.findings) << row.why;
  }
  for (const auto& c : results["cases"]) {
    const std::string id = c["case"];
    if (c["verdict"] == "INFORMATIONAL") informational.insert(id);
    if (const auto it = row.verdicts.find(id); it != row.verdicts.end()) {
      EXPECT_EQ(c["verdict"], it->second) << row.why << ": " << id << "\n" << c.dump(2);
    }
    for (const auto& n : c.value("not_judged", nlohmann::json::array()))
      not_judged.insert(n["id"].get<std::string>());
  }
  if (row.informational) {
    EXPECT_EQ(informational, *row.informational) << row.why;
  }
  for (const auto& id : row.not_judged) {
    EXPECT_TRUE(not_judged.count(id)) << row.why << ": " << id << " was judged";
  }
}

class OneDefect : public ::testing::TestWithParam<IsolationRow> {};

TEST_P(OneDefect, FailsItsOwnChecksOnly) {
  const IsolationRow& row = GetParam();
  std::vector<std::string> options = {"--transport", row.transport};
  if (!row.revision.empty()) options.insert(options.end(), {"--revision", row.revision});
  if (row.schemas) {
    if (test_schemas().empty()) GTEST_SKIP() << "no specification schemas beside the checkout";
    options.insert(options.end(), {"--schemas", test_schemas()});
  }
  std::vector<std::string> client = {MCP_PING_BROKEN_CLIENT, "--fault", row.fault};
  client.insert(client.end(), row.client_args.begin(), row.client_args.end());
  const RunnerRun run = run_runner(options, client, row.name);
  const auto results =
      nlohmann::json::parse(read_text(run.report_dir / "results.json"), nullptr, false);
  ASSERT_TRUE(results.is_object()) << run.output;
  expect_case_model(row, results);
  if (!row.fails) return;
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
  for (const auto& f : *row.fails) {
    EXPECT_TRUE(matched.count(f)) << row.why << ": " << f << " never failed\n" << run.output;
  }
}

INSTANTIATE_TEST_SUITE_P(SelfTests, OneDefect, ::testing::ValuesIn(load_isolation_rows()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace mcpping::selftest
