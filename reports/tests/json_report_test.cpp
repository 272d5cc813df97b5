#include "reports/json_report.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "reports/baseline.hpp"

#include "test_runs.hpp"

namespace mcpping {
namespace {

using test::make_case;
using test::make_check;
using test::make_run;

TEST(ResultsJson, CarriesRunCountsCasesChecksAndSpec) {
  auto pong = make_check("ping/a:pong", Verdict::Pass);
  pong.latency_ms = {1.0};
  auto other = make_check("ping/a:second-pong", Verdict::Pass);
  other.latency_ms = {3.0};
  const auto run =
      make_run({make_case("ping/a", {pong, other}),
                make_case("ping/idle", {make_check("ping/idle:pong", Verdict::Fail)})});
  const auto doc = to_json(run);
  EXPECT_EQ(doc["format"], "mcp-ping-conformance-results/1");
  EXPECT_EQ(doc["run"]["revision"], "2025-11-25");
  EXPECT_EQ(doc["run"]["driver"], nlohmann::json({"./driver", "--flag"}));
  EXPECT_EQ(doc["counts"]["pass"], 1);
  EXPECT_EQ(doc["counts"]["fail"], 1);
  const auto& a = doc["cases"][0];
  EXPECT_EQ(a["latency_ms"]["count"], 2);
  EXPECT_EQ(a["latency_ms"]["p50"], 1.0);
  EXPECT_EQ(a["latency_ms"]["max"], 3.0);
  EXPECT_FALSE(a.contains("bursts"));
  EXPECT_EQ(doc["cases"][1]["checks"][0]["spec"][0]["text"],
            "The receiver MUST respond promptly with an empty response");
  EXPECT_EQ(doc["cases"][1]["checks"][0]["spec"][0]["binds"], "either");
}

// A burst's pongs are not in the case's single-pong figures; its figures are on the check and,
// for tools that read cases, in the case's bursts.
TEST(ResultsJson, CarriesBurstFiguresApartFromSinglePongs) {
  const auto doc = to_json(test::latency_run());
  const auto& burst = doc["cases"][2];
  ASSERT_EQ(burst["case"], "ping/burst");
  EXPECT_FALSE(burst.contains("latency_ms")) << burst.dump();
  EXPECT_EQ(burst["checks"][0]["latency_ms"], nlohmann::json({40.0, 45.0, 50.0}));
  const nlohmann::json figures = {
      {"pings", 3}, {"pongs", 3}, {"time_to_last_pong_ms", 52.5}, {"pongs_per_second", 57.143}};
  EXPECT_EQ(burst["checks"][0]["burst"], figures);
  auto with_check = figures;
  with_check["check"] = "pongs";
  EXPECT_EQ(burst["bursts"], nlohmann::json::array({with_check}));
  EXPECT_EQ(doc["cases"][0]["latency_ms"]["p50"], 0.2);
}

TEST(ResultsJson, RoundTripsThroughAFile) {
  auto run =
      make_run({make_case("ping/idle", {make_check("ping/idle:pong", Verdict::NonStrict)})}, true);
  run.cases[0].expectation = CaseResult::Expectation::kExpectedFailure;
  run.cases[0].expectation_reason = "answers at the next request";
  run.cases[0].description = "the server pings while the client is idle";
  run.cases[0].checks[0].at_ms = 12.5;
  run.cases[0].checks[0].latency_ms = {40, 45, 50};
  run.cases[0].checks[0].burst = BurstFigures{3, 3, 52.5, 57.143};
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
  EXPECT_EQ(back.cases[0].checks[0].latency_ms, (std::vector<double>{40, 45, 50}));
  ASSERT_TRUE(back.cases[0].checks[0].burst.has_value());
  EXPECT_EQ(back.cases[0].checks[0].burst->pings, 3u);
  EXPECT_EQ(back.cases[0].checks[0].burst->pongs, 3u);
  EXPECT_EQ(back.cases[0].checks[0].burst->time_to_last_pong_ms, 52.5);
  EXPECT_EQ(back.cases[0].checks[0].burst->pongs_per_second, 57.143);
}

// A baseline's finding that did not occur is a stale entry, which fails the run; read back, it
// still is (no case holds it, so collecting the findings again alone would lose it).
TEST(ResultsJson, StaleFindingSurvivesReadingBack) {
  auto run = make_run({make_case("ping/a", {make_check("ping/a:pong", Verdict::Pass)})});
  Baseline baseline;
  baseline.expected_failures.push_back({"", "", "http:session-id", std::nullopt, "no header", 3});
  apply_baseline(baseline, {}, run);
  ASSERT_EQ(run.findings.size(), 1u);
  const auto file = std::filesystem::temp_directory_path() / "mcp-ping-results-stale.json";
  write_results_json(run, file);
  const RunResult back = read_results_json(file);
  ASSERT_EQ(back.findings.size(), 1u);
  EXPECT_EQ(back.findings[0].expectation, CaseResult::Expectation::kStale);
  EXPECT_EQ(back.findings[0].example, "did not occur in this run");
  EXPECT_EQ(run_status(back), RunStatus::kFailed);
  EXPECT_EQ(to_json(back), to_json(run));
  std::filesystem::remove(file);
}

TEST(ResultsJson, SaysWhetherSchemaValidationWasOn) {
  auto run = make_run({make_case("ping/a", {make_check("ping/a:pong", Verdict::Pass)})});
  EXPECT_TRUE(to_json(run)["run"]["schemas"].is_null());
  run.info.schemas = "/spec/schema";
  EXPECT_EQ(to_json(run)["run"]["schemas"], "/spec/schema");
  const auto file = std::filesystem::temp_directory_path() / "mcp-ping-results-schemas.json";
  write_results_json(run, file);
  EXPECT_EQ(read_results_json(file).info.schemas, "/spec/schema");
  std::filesystem::remove(file);
}

// Reports written before burst figures: they still load; a check with several latencies
// judged several pings, so its pongs stay out of the single-pong figures.
TEST(ResultsJson, ReportWithoutBurstFiguresLoads) {
  const auto file = std::filesystem::temp_directory_path() / "mcp-ping-results-old.json";
  std::ofstream(file) << R"({"format": "mcp-ping-conformance-results/1",
    "suite": {"version": "0.1.0"}, "run": {"revision": "2025-11-25"},
    "cases": [{"case": "ping/burst", "transport": "stdio", "verdict": "PASS", "checks": [
      {"id": "ping/burst:pongs", "latency_ms": [9.0, 10.0]},
      {"id": "ping/burst:malformed", "burst": {"pings": "three"}}]},
      {"case": "ping/a", "transport": "stdio", "verdict": "PASS", "checks": [
      {"id": "ping/a:pong", "latency_ms": [0.3]}]}]})";
  const RunResult back = read_results_json(file);
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_FALSE(back.cases[0].checks[0].burst.has_value());
  EXPECT_FALSE(back.cases[0].checks[1].burst.has_value());
  EXPECT_TRUE(is_burst(back.cases[0].checks[0]));
  EXPECT_EQ(single_pong_figures(back.cases[0]).count, 0u);
  EXPECT_TRUE(bursts_of(back).empty());
  const auto single = single_pong_figures(back);
  EXPECT_EQ(single.count, 1u);
  EXPECT_EQ(single.p50, 0.3);
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

TEST(LatencyFigures, NearestRankOverEverySinglePong) {
  auto a = make_check("c:a", Verdict::Pass);
  a.latency_ms = {5};
  auto b = make_check("c:b", Verdict::Pass);
  b.latency_ms = {3};
  auto c = make_check("c:c", Verdict::Pass);
  c.latency_ms = {1};
  const auto figures = single_pong_figures(make_case("c", {a, b, c}));
  EXPECT_EQ(figures.count, 3u);
  EXPECT_EQ(figures.p50, 3);
  EXPECT_EQ(figures.p95, 5);
  EXPECT_EQ(figures.max, 5);
}

// The defect: every pong of a run was pooled, so ping/burst's queued pongs made stdio's p50
// read ~9 ms while a single pong took ~0.2 ms. Single-pong figures come from single pongs
// only; a burst is reported by its own figures.
TEST(LatencyFigures, SinglePongLatencyExcludesBurstPongs) {
  const auto run = test::latency_run();
  const auto stdio = single_pong_figures(run, "stdio");
  EXPECT_EQ(stdio.count, 2u);
  EXPECT_EQ(stdio.p50, 0.2);
  EXPECT_EQ(stdio.p95, 0.4);
  EXPECT_EQ(stdio.max, 0.4);
  const auto http = single_pong_figures(run, "streamable-http");
  EXPECT_EQ(http.count, 1u);
  EXPECT_EQ(http.p50, 1.5);
  EXPECT_EQ(single_pong_figures(run).count, 3u);
  EXPECT_EQ(single_pong_figures(run.cases[2]).count, 0u);

  const auto bursts = bursts_of(run, "stdio");
  ASSERT_EQ(bursts.size(), 1u);
  EXPECT_EQ(bursts[0].result->case_id, "ping/burst");
  EXPECT_EQ(bursts[0].check->burst->time_to_last_pong_ms, 52.5);
  EXPECT_EQ(bursts[0].check->burst->pongs_per_second, 57.143);
  ASSERT_EQ(bursts_of(run).size(), 2u);
  EXPECT_EQ(bursts_of(run)[1].check->burst->pongs, 2u);
}

TEST(BurstFigures, ReadOnlyFromACompleteObject) {
  const auto burst = burst_from_json({{"pings", 1000},
                                      {"pongs", 998},
                                      {"time_to_last_pong_ms", 250.0},
                                      {"pongs_per_second", 3992.0}});
  ASSERT_TRUE(burst.has_value());
  EXPECT_EQ(burst->pings, 1000u);
  EXPECT_EQ(burst->pongs, 998u);
  EXPECT_EQ(to_json(*burst)["time_to_last_pong_ms"], 250.0);
  EXPECT_FALSE(burst_from_json(nlohmann::json()).has_value());
  EXPECT_FALSE(burst_from_json({{"pings", 3}, {"pongs", 3}}).has_value());
  EXPECT_FALSE(
      burst_from_json(
          {{"pings", -1}, {"pongs", 3}, {"time_to_last_pong_ms", 1.0}, {"pongs_per_second", 1.0}})
          .has_value());
}

}  // namespace
}  // namespace mcpping
