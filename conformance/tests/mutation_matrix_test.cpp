// Every MUST and SHOULD check can fail (docs/verdicts.md, "Every check can fail"). The
// mutation matrix, data/mutation_matrix.json, says per broken-client fault and transport
// which checks that fault makes fail. One test per row runs the fault over the cases it
// names and asserts that each claimed check fails; one test asserts that every MUST and
// SHOULD check of the catalogue, on every transport it runs on, is claimed by some row, and
// names each that is not.
#include <fnmatch.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <set>

#include "selftest_support.hpp"

namespace mcpping::selftest {
namespace {

using nlohmann::json;

struct MatrixRow {
  std::string fault, transport;
  std::vector<std::string> proves;  // "<case glob>:<check glob>"; '*' matches '/' too
  std::string revision;             // the run's --revision; empty for the default
};

void PrintTo(const MatrixRow& row, std::ostream* out) {
  *out << row.fault << " on " << row.transport;
  if (!row.revision.empty()) *out << " at " << row.revision;
}

std::vector<MatrixRow> load_matrix_rows() {
  const auto rows = json::parse(read_text(MCP_PING_SELFTEST_DATA "/mutation_matrix.json"))["rows"];
  std::vector<MatrixRow> out;
  for (const auto& row : rows)
    out.push_back({row["fault"], row["transport"], row["proves"].get<std::vector<std::string>>(),
                   row.value("revision", "")});
  return out;
}

bool glob(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

// Does "<case glob>:<check glob>" match the check `check_id` of case `case_id`?
bool claims(const std::string& pattern, const std::string& case_id, const std::string& check_id) {
  const auto colon = pattern.find(':');
  return colon != std::string::npos && glob(pattern.substr(0, colon), case_id) &&
         glob(pattern.substr(colon + 1), check_id);
}

bool must_or_should(const std::string& level) { return level == "MUST" || level == "SHOULD"; }

// `mcp-ping-conformance list --json`, read once.
const json& catalogue() {
  static const json listed = [] {
    const auto dir = selftest_root();
    std::filesystem::create_directories(dir);
    SpawnSpec spec;
    spec.argv = {MCP_PING_RUNNER, "list", "--json"};
    spec.stdout_file = dir / ("catalogue-" + std::to_string(::getpid()) + ".json");
    spec.stderr_file = dir / ("catalogue-" + std::to_string(::getpid()) + ".err");
    spec.deadline = std::chrono::seconds(30);
    run_child(spec);
    auto parsed = json::parse(read_text(spec.stdout_file), nullptr, false);
    std::filesystem::remove(spec.stdout_file);
    std::filesystem::remove(spec.stderr_file);
    return parsed;
  }();
  return listed;
}

// Does case `c` run at the row's revision (the runner's default when the row names none)?
bool runs_at(const json& c, const MatrixRow& row) {
  const std::string revision = row.revision.empty() ? "2025-11-25" : row.revision;
  return c["revisions"]["from"].get<std::string>() <= revision &&
         revision <= c["revisions"]["until"].get<std::string>();  // ISO dates order as text
}

// Whether a claim names one of the mock servers' own checks ("http:*", "cancellation:*", ids
// with a colon of their own): recorded when the client breaks a rule, they are no check of the
// catalogue's list.
bool claims_own_check(const std::string& pattern) {
  const auto colon = pattern.find(':');
  return colon != std::string::npos && pattern.find(':', colon + 1) != std::string::npos;
}

// Does the row claim a MUST or SHOULD check of case `c` on its transport and revision? A claim
// of an HTTP rule's check selects the cases it names that run on the row's transport.
bool row_claims_case(const MatrixRow& row, const json& c) {
  if (!runs_at(c, row)) return false;
  const auto& transports = c["transports"];
  const bool on_transport =
      std::find(transports.begin(), transports.end(), row.transport) != transports.end();
  for (const auto& pattern : row.proves) {
    if (on_transport && claims_own_check(pattern) &&
        glob(pattern.substr(0, pattern.find(':')), c["id"]))
      return true;
  }
  for (const auto& check : c["checks"]) {
    if (!must_or_should(check["level"])) continue;
    const auto& on = check["transports"];
    if (std::find(on.begin(), on.end(), row.transport) == on.end()) continue;
    for (const auto& pattern : row.proves)
      if (claims(pattern, c["id"], check["id"])) return true;
  }
  return false;
}

class MutationMatrix : public ::testing::TestWithParam<MatrixRow> {};

TEST_P(MutationMatrix, TheFaultFailsEveryCheckItClaims) {
  const MatrixRow& row = GetParam();
  ASSERT_TRUE(catalogue().is_object()) << "mcp-ping-conformance list --json failed";
  // Only the cases the row claims a check of, so a "*:pong" row runs the cases with a pong.
  std::vector<std::string> options = {"--transport", row.transport};
  if (!row.revision.empty()) options.insert(options.end(), {"--revision", row.revision});
  for (const auto& c : catalogue()["cases"])
    if (row_claims_case(row, c)) options.insert(options.end(), {"--scenario", c["id"]});
  ASSERT_GT(options.size(), 2u) << "the row claims no check of the catalogue";
  const RunnerRun run = run_runner(options, {MCP_PING_BROKEN_CLIENT, "--fault", row.fault},
                                   row.fault + "-" + row.transport);
  const auto results = json::parse(read_text(run.report_dir / "results.json"), nullptr, false);
  ASSERT_TRUE(results.is_object()) << run.output;
  std::set<std::string> used;
  for (const auto& c : results["cases"]) {
    const std::string case_id = c["case"];
    for (const auto& check : c["checks"]) {
      const std::string full_id = check["id"];
      const std::string check_id = full_id.substr(full_id.find(':') + 1);
      if (!must_or_should(check["level"])) continue;
      for (const auto& pattern : row.proves) {
        if (!claims(pattern, case_id, check_id)) continue;
        used.insert(pattern);
        // Failed as observed, not merely never reached behind an earlier failure.
        const std::string verdict = check["verdict"];
        const std::string outcome = check["outcome"];
        EXPECT_TRUE((verdict == "FAIL" || verdict == "NON_STRICT") && outcome != "not_reached")
            << row.fault << " on " << row.transport << " does not make " << full_id
            << " fail: " << verdict << " (" << outcome << ")\n  actual: " << check["actual"];
      }
    }
  }
  for (const auto& pattern : row.proves)
    EXPECT_TRUE(used.count(pattern)) << pattern << " matched no MUST or SHOULD check\n"
                                     << run.output;
}

INSTANTIATE_TEST_SUITE_P(SelfTests, MutationMatrix, ::testing::ValuesIn(load_matrix_rows()),
                         [](const auto& info) {
                           std::string name =
                               info.param.fault + "_" + info.param.transport +
                               (info.param.revision.empty() ? std::string()
                                                            : "_" + info.param.revision);
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(MutationMatrix, EveryMustAndShouldCheckHasABrokenClientThatFailsIt) {
  ASSERT_TRUE(catalogue().is_object()) << "mcp-ping-conformance list --json failed";
  const auto rows = load_matrix_rows();
  std::vector<std::string> unproven;
  std::size_t required = 0;
  for (const auto& c : catalogue()["cases"]) {
    for (const auto& check : c["checks"]) {
      if (!must_or_should(check["level"])) continue;
      for (const auto& transport : check["transports"]) {
        ++required;
        const bool proven = std::any_of(rows.begin(), rows.end(), [&](const MatrixRow& row) {
          return row.transport == transport && runs_at(c, row) &&
                 std::any_of(row.proves.begin(), row.proves.end(),
                             [&](const std::string& p) { return claims(p, c["id"], check["id"]); });
        });
        if (!proven) {
          unproven.push_back(c["id"].get<std::string>() + ":" + check["id"].get<std::string>() +
                             " on " + transport.get<std::string>());
        }
      }
    }
  }
  std::string list;
  for (const auto& u : unproven) list += "\n  " + u;
  EXPECT_TRUE(unproven.empty()) << unproven.size() << " of " << required
                                << " MUST/SHOULD checks have no broken client that fails them "
                                   "(data/mutation_matrix.json):"
                                << list;
}

}  // namespace
}  // namespace mcpping::selftest
