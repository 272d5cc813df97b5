#include "reports/json_report.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "test_runs.hpp"

namespace mcpping {
namespace {

using test::make_case;
using test::make_check;
using test::make_run;

TEST(ResultsJson, CarriesRunCountsCasesChecksAndSpec) {
  auto pong = make_check("ping/burst:pongs", Verdict::Pass);
  pong.latency_ms = {1.0, 2.0, 3.0, 4.0, 100.0};
  const auto run =
      make_run({make_case("ping/burst", {pong}),
                make_case("ping/idle", {make_check("ping/idle:pong", Verdict::Fail)})});
  const auto doc = to_json(run);
  EXPECT_EQ(doc["format"], "mcp-ping-conformance-results/1");
  EXPECT_EQ(doc["run"]["revision"], "2025-11-25");
  EXPECT_EQ(doc["run"]["driver"], nlohmann::json({"./driver", "--flag"}));
  EXPECT_EQ(doc["counts"]["pass"], 1);
  EXPECT_EQ(doc["counts"]["fail"], 1);
  const auto& burst = doc["cases"][0];
  EXPECT_EQ(burst["latency_ms"]["count"], 5);
  EXPECT_EQ(burst["latency_ms"]["p50"], 3.0);
  EXPECT_EQ(burst["latency_ms"]["max"], 100.0);
  EXPECT_EQ(doc["cases"][1]["checks"][0]["spec"][0]["text"],
            "The receiver MUST respond promptly with an empty response");
  EXPECT_EQ(doc["cases"][1]["checks"][0]["spec"][0]["binds"], "either");
}

TEST(ResultsJson, RoundTripsThroughAFile) {
  auto run =
      make_run({make_case("ping/idle", {make_check("ping/idle:pong", Verdict::NonStrict)})}, true);
  run.cases[0].expectation = CaseResult::Expectation::kExpectedFailure;
  run.cases[0].expectation_reason = "answers at the next request";
  run.cases[0].description = "the server pings while the client is idle";
  run.cases[0].checks[0].at_ms = 12.5;
  const auto file = std::filesystem::temp_directory_path() / "mcp-ping-results-test.json";
  write_results_json(run, file);
  const RunResult back = read_results_json(file);
  EXPECT_TRUE(back.info.strict);
  ASSERT_EQ(back.cases.size(), 1u);
  EXPECT_EQ(back.cases[0].verdict, Verdict::NonStrict);
  EXPECT_EQ(back.cases[0].expectation, CaseResult::Expectation::kExpectedFailure);
  EXPECT_EQ(back.cases[0].checks[0].id, "ping/idle:pong");
  EXPECT_EQ(back.cases[0].checks[0].short_id, "pong");
  EXPECT_EQ(back.cases[0].checks[0].spec[0].url, "https://spec.example/ping");
  EXPECT_EQ(back.cases[0].checks[0].spec[0].binds, Binds::Either);
  EXPECT_EQ(back.cases[0].description, "the server pings while the client is idle");
  EXPECT_EQ(back.cases[0].checks[0].at_ms, 12.5);
}

TEST(ResultsJson, ReadingSomethingElseIsAClearError) {
  const auto file = std::filesystem::temp_directory_path() / "mcp-ping-not-results.json";
  std::ofstream(file) << "{\"hello\": 1}";
  try {
    read_results_json(file);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a results.json"), std::string::npos) << e.what();
  }
}

TEST(LatencyFigures, NearestRankOverEveryCheck) {
  auto a = make_check("c:a", Verdict::Pass);
  a.latency_ms = {5, 1};
  auto b = make_check("c:b", Verdict::Pass);
  b.latency_ms = {3};
  const auto figures = latency_figures(make_case("c", {a, b}));
  EXPECT_EQ(figures.count, 3u);
  EXPECT_EQ(figures.p50, 3);
  EXPECT_EQ(figures.p95, 5);
  EXPECT_EQ(figures.max, 5);
}

}  // namespace
}  // namespace mcpping
