#include "conformance/case_plan.hpp"

#include <algorithm>

#include <gtest/gtest.h>

namespace mcpping {
namespace {

Scenario plan_scenario(const std::string& id, std::vector<std::string> transports,
                       std::string until = "2025-11-25") {
  Scenario s;
  s.id = id;
  s.transports = std::move(transports);
  s.revision_until = std::move(until);
  return s;
}

const std::vector<Scenario> kCatalogue = {
    plan_scenario("client-ping/answered", {"stdio", "streamable-http"}),
    plan_scenario("ping/id/zero", {"stdio", "streamable-http"}),
    plan_scenario("ping/idle", {"stdio", "sse"}),
};

TEST(Glob, StarCrossesSlashes) {
  EXPECT_TRUE(glob_matches("ping/*", "ping/id/zero"));
  EXPECT_TRUE(glob_matches("*zero", "ping/id/zero"));
  EXPECT_FALSE(glob_matches("ping/*", "client-ping/answered"));
  EXPECT_TRUE(glob_matches("ping/id/beyond-2^53", "ping/id/beyond-2^53"));
}

TEST(Plan, HostedTransportsOnlyInCatalogueOrder) {
  PlanRequest request;
  request.hosted_transports = {"stdio"};
  const auto cases = plan_cases(kCatalogue, request);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].scenario->id, "client-ping/answered");
  EXPECT_EQ(cases[2].scenario->id, "ping/idle");
  for (const auto& c : cases) EXPECT_EQ(c.transport, "stdio");
}

TEST(Plan, GlobsAndTransportFilter) {
  PlanRequest request;
  request.hosted_transports = {"stdio", "streamable-http", "sse"};
  request.globs = {"ping/*"};
  request.transport = "sse";
  const auto cases = plan_cases(kCatalogue, request);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].scenario->id, "ping/idle");
}

TEST(Plan, CasesOutsideTheirRevisionsAreUnsupported) {
  PlanRequest request;
  request.hosted_transports = {"stdio"};
  request.revision = "2026-07-28";
  const auto cases = plan_cases(kCatalogue, request);
  ASSERT_FALSE(cases.empty());
  ASSERT_TRUE(cases[0].unsupported);
  EXPECT_NE(cases[0].unsupported->find("not 2026-07-28"), std::string::npos);
}

// Regression (revision gating by transport): a Streamable HTTP case ran at --revision
// 2024-11-05, a revision that has no Streamable HTTP; legacy HTTP+SSE runs at every revision
// (the later transports pages keep it under "Backwards Compatibility").
TEST(Plan, StreamableHttpAtRevision20241105IsUnsupportedBeforeRunning) {
  PlanRequest request;
  request.hosted_transports = {"stdio", "streamable-http", "sse"};
  request.revision = "2024-11-05";
  const auto cases = plan_cases(kCatalogue, request);
  ASSERT_EQ(cases.size(), 6u);
  for (const auto& c : cases) {
    if (c.transport == "streamable-http") {
      ASSERT_TRUE(c.unsupported) << c.scenario->id;
      EXPECT_EQ(*c.unsupported,
                "Streamable HTTP exists from revision 2025-03-26, not in 2024-11-05");
    } else {
      EXPECT_FALSE(c.unsupported) << c.scenario->id << " on " << c.transport;
    }
  }
  request.revision = "2025-03-26";
  for (const auto& c : plan_cases(kCatalogue, request)) EXPECT_FALSE(c.unsupported);
  request.revision = "2025-11-25";
  request.transport = "sse";
  const auto legacy = plan_cases(kCatalogue, request);
  ASSERT_EQ(legacy.size(), 1u);
  EXPECT_FALSE(legacy[0].unsupported) << "legacy HTTP+SSE runs at later revisions";
}

TEST(Shard, PartsAreDisjointAndComplete) {
  PlanRequest request;
  request.hosted_transports = {"stdio", "streamable-http", "sse"};
  const auto cases = plan_cases(kCatalogue, request);
  ASSERT_EQ(cases.size(), 6u);
  std::vector<std::string> seen;
  for (unsigned i = 1; i <= 4; ++i) {
    for (const auto& c : shard_of(cases, i, 4)) seen.push_back(c.scenario->id + "@" + c.transport);
  }
  std::vector<std::string> all;
  for (const auto& c : cases) all.push_back(c.scenario->id + "@" + c.transport);
  std::sort(seen.begin(), seen.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(seen, all);
  EXPECT_EQ(shard_of(cases, 1, 4).size(), 2u);
  EXPECT_EQ(shard_of(cases, 4, 4).size(), 1u);
}

TEST(Plan, AGlobMatchingNothingIsRefused) {
  PlanRequest request;
  request.hosted_transports = {"stdio"};
  request.globs = {"ping/*", "pnig/typo"};
  EXPECT_THROW(plan_cases(kCatalogue, request), std::invalid_argument);
}

}  // namespace
}  // namespace mcpping
