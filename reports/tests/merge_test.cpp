#include "reports/merge.hpp"

#include <gtest/gtest.h>

#include "reports/baseline.hpp"
#include "reports/junit.hpp"
#include "test_runs.hpp"

namespace mcpping {
namespace {

using test::make_case;
using test::make_check;
using test::make_run;

CaseResult passing(const std::string& id, const std::string& transport = "stdio") {
  return make_case(id, {make_check(id + ":pong", Verdict::Pass)}, transport);
}

TEST(MergeShards, ShardsOfOneLabelBecomeOneSortedRun) {
  auto first = make_run({passing("ping/b"), passing("ping/a", "sse")});
  first.duration_ms = 100;
  first.started_at = "2026-11-29T23:00:05Z";
  auto second = make_run({passing("ping/a")});
  second.duration_ms = 50;
  second.started_at = "2026-11-29T23:00:01Z";
  const auto clients =
      merge_shards({{"ref", first}, {"other", make_run({passing("ping/a")})}, {"ref", second}});
  ASSERT_EQ(clients.size(), 2u);
  EXPECT_EQ(clients[0].label, "ref");
  EXPECT_EQ(clients[1].label, "other");
  const RunResult& ref = clients[0].run;
  ASSERT_EQ(ref.cases.size(), 3u);
  EXPECT_EQ(ref.cases[0].case_id + " " + ref.cases[0].transport, "ping/a sse");
  EXPECT_EQ(ref.cases[1].case_id + " " + ref.cases[1].transport, "ping/a stdio");
  EXPECT_EQ(ref.cases[2].case_id, "ping/b");
  EXPECT_DOUBLE_EQ(ref.duration_ms, 150);
  EXPECT_EQ(ref.started_at, "2026-11-29T23:00:01Z");
}

// A baseline's finding seen in one shard and not in another (stale there) occurred in the
// merged run: an expected failure. Seen in no shard, it stays one stale entry.
TEST(MergeShards, FindingsKeepWhatTheBaselineSaid) {
  Baseline baseline;
  baseline.expected_failures.push_back({"", "", "http:session-id", std::nullopt, "known", 1});
  auto without = make_run({passing("ping/a")});
  apply_baseline(baseline, {}, without);
  auto with = make_run({make_case(
      "ping/b", {make_check("ping/b:pong", Verdict::Pass),
                 test::make_finding("ping/b", "http:session-id", "no Mcp-Session-Id")})});
  apply_baseline(baseline, {}, with);
  ASSERT_EQ(without.findings.at(0).expectation, Expectation::kStale);
  ASSERT_EQ(with.findings.at(0).expectation, Expectation::kExpectedFailure);
  const auto seen = merge_shards({{"ref", without}, {"ref", with}});
  ASSERT_EQ(seen.at(0).run.findings.size(), 1u);
  EXPECT_EQ(seen[0].run.findings[0].expectation, Expectation::kExpectedFailure);
  EXPECT_EQ(seen[0].run.findings[0].cases, std::vector<std::string>{"ping/b"});
  EXPECT_EQ(run_status(seen[0].run), RunStatus::kOk);
  auto again = make_run({passing("ping/c")});
  apply_baseline(baseline, {}, again);
  const auto unseen = merge_shards({{"ref", without}, {"ref", again}});
  ASSERT_EQ(unseen.at(0).run.findings.size(), 1u);
  EXPECT_EQ(unseen[0].run.findings[0].expectation, Expectation::kStale);
  EXPECT_EQ(run_status(unseen[0].run), RunStatus::kFailed);
}

TEST(MergeShards, TheSameCaseInTwoShardsIsAnError) {
  try {
    merge_shards({{"ref", make_run({passing("ping/a")})}, {"ref", make_run({passing("ping/a")})}});
    FAIL() << "merged";
  } catch (const MergeError& e) {
    EXPECT_NE(std::string(e.what()).find("both hold ping/a on stdio"), std::string::npos)
        << e.what();
  }
  // The same case on another transport is another case.
  EXPECT_NO_THROW(merge_shards(
      {{"ref", make_run({passing("ping/a")})}, {"ref", make_run({passing("ping/a", "sse")})}}));
}

TEST(MergeShards, ShardsMustShareStrictness) {
  EXPECT_THROW(merge_shards({{"ref", make_run({passing("ping/a")}, true)},
                             {"ref", make_run({passing("ping/b")}, false)}}),
               MergeError);
}

TEST(CombinedRun, SeveralClientsGetTheirLabelInTheClassname) {
  const std::vector<LabelledRun> clients = {{"ref", make_run({passing("ping/a")})},
                                            {"ts", make_run({passing("ping/a")})}};
  const std::string junit = render_junit(combined_run(clients));
  EXPECT_NE(junit.find("classname=\"mcp.ref.stdio\" name=\"ping/a\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("classname=\"mcp.ts.stdio\" name=\"ping/a\""), std::string::npos);
  EXPECT_NE(junit.find("tests=\"2\""), std::string::npos);
  const std::string single = render_junit(combined_run({clients[0]}));
  EXPECT_NE(single.find("classname=\"mcp.stdio\""), std::string::npos) << single;
  EXPECT_THROW(combined_run({clients[0], {"strict", make_run({passing("ping/a")}, true)}}),
               MergeError);
}

TEST(ClientFolder, IsOneSafePathSegment) {
  EXPECT_EQ(client_folder("TypeScript SDK 1.32.2"), "TypeScript-SDK-1.32.2");
  EXPECT_EQ(client_folder("../etc"), "client..-etc");
  EXPECT_EQ(client_folder(".."), "client..");
  EXPECT_EQ(client_folder(""), "client");
}

}  // namespace
}  // namespace mcpping
