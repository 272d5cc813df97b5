#include "core/transcript_model.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace mcpping {
namespace {

namespace fs = std::filesystem;

class TranscriptModel : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("core-transcript-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& text) {
    auto file = dir_ / "transcript.jsonl";
    std::ofstream(file) << text;
    return file;
  }

  static std::string start() {
    return R"({"kind":"start","t":0,"version":3,"scenario":"s","transport":"stdio","revision":"2025-11-25"})"
           "\n";
  }

  fs::path dir_;
};

CheckRecord sample_check() {
  CheckRecord r;
  r.check = CheckDef{"pong", Level::Should, {"ping.respond"}};
  r.outcome = Outcome::Degraded;
  r.expected = "a pong";
  r.actual = "late";
  r.latency_ms = {1.5, 2.5};
  r.step = 3;
  r.details = {{"latency", {{"p50", 1.5}}}};
  return r;
}

TEST_F(TranscriptModel, CheckRecordsRoundTrip) {
  auto json = to_json(sample_check());
  json["kind"] = "check";
  json["t"] = 12.5;
  const auto back = check_record_from_json(json);
  EXPECT_EQ(back.check.id, "pong");
  EXPECT_EQ(back.check.level, Level::Should);
  EXPECT_EQ(back.outcome, Outcome::Degraded);
  EXPECT_EQ(back.latency_ms, (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(back.step, 3u);
  EXPECT_EQ(back.t, 12.5);
  EXPECT_EQ(back.details, (Json{{"latency", {{"p50", 1.5}}}}));
  EXPECT_FALSE(json.contains("verdict")) << "a mock server records outcomes, never verdicts";
}

TEST_F(TranscriptModel, CheckRecordWithoutOutcomeIsRefused) {
  auto json = to_json(sample_check());
  json["t"] = 1;
  json.erase("outcome");
  json["verdict"] = "PASS";
  EXPECT_THROW(check_record_from_json(json), std::invalid_argument);
}

TEST_F(TranscriptModel, MissingFileIsNotPresent) {
  EXPECT_FALSE(read_transcript(dir_ / "none.jsonl").present);
}

TEST_F(TranscriptModel, ReadsChecksLastEventAndEnd) {
  auto check = to_json(sample_check());
  check["kind"] = "check";
  check["t"] = 5;
  const auto file = write(
      start() + check.dump() + "\n" +
      R"({"kind":"event","t":6,"what":"script stopped","stopped":true,"step":4,"why":"write failed"})"
      "\n"
      R"({"kind":"end","t":7,"reason":"eof"})"
      "\n");
  const auto t = read_transcript(file);
  EXPECT_TRUE(t.present);
  EXPECT_TRUE(t.ended);
  EXPECT_FALSE(t.problem);
  ASSERT_EQ(t.checks.size(), 1u);
  EXPECT_EQ(t.last_event, "script stopped");
}

// Regression (revision gating by the negotiated version): the runner judged a case by
// --revision alone. The handshake's `event` carries `negotiated` (a member of an existing kind:
// the format version stays the same); the first one is the session's version.
TEST_F(TranscriptModel, ReadsTheNegotiatedVersionOfTheFirstHandshake) {
  const auto file = write(
      start() +
      R"({"kind":"event","t":1,"what":"negotiated protocol version 2025-03-26","negotiated":"2025-03-26"})"
      "\n"
      R"({"kind":"event","t":2,"what":"negotiated protocol version 2025-06-18","negotiated":"2025-06-18"})"
      "\n");
  const auto t = read_transcript(file);
  EXPECT_FALSE(t.problem);
  EXPECT_EQ(t.negotiated, "2025-03-26");
  EXPECT_FALSE(read_transcript(write(start())).negotiated) << "no handshake, no version";
}

TEST_F(TranscriptModel, TornLastLineIsSkipped) {
  const auto t = read_transcript(write(start() + R"({"kind":"event","t":1,"wh)"));
  EXPECT_FALSE(t.problem);
  EXPECT_EQ(t.records.size(), 1u);
}

TEST_F(TranscriptModel, UnknownKindIsAProblemNotAFailure) {
  const auto t = read_transcript(write(start() + R"({"kind":"verdict","t":1})"
                                                 "\n"));
  ASSERT_TRUE(t.problem);
  EXPECT_NE(t.problem->find("unknown record kind"), std::string::npos);
}

TEST_F(TranscriptModel, OtherVersionIsAProblem) {
  const auto t = read_transcript(write(R"({"kind":"start","t":0,"version":1})"
                                       "\n"));
  ASSERT_TRUE(t.problem);
  EXPECT_NE(t.problem->find("version"), std::string::npos);
}

TEST_F(TranscriptModel, GarbageInTheMiddleIsAProblem) {
  const auto t = read_transcript(write(start() + "garbage\n" +
                                       R"({"kind":"end","t":1,"reason":"eof"})"
                                       "\n"));
  ASSERT_TRUE(t.problem);
}

TEST_F(TranscriptModel, MalformedCheckIsAProblem) {
  const auto t = read_transcript(write(start() + R"({"kind":"check","t":1,"check":"x"})"
                                                 "\n"));
  ASSERT_TRUE(t.problem);
  EXPECT_NE(t.problem->find("check record"), std::string::npos);
}

TEST_F(TranscriptModel, RenderedLinesCarryTimeLabelAndText) {
  const Json frame = {
      {"kind", "frame"}, {"t", 12.41}, {"dir", "c2s"}, {"text", "{}"}, {"writes", 3}};
  EXPECT_EQ(render_text_line(frame), "+    12.410ms  client>   {}  [3 writes]");
  auto check = to_json(sample_check());
  check["kind"] = "check";
  check["t"] = 1;
  EXPECT_NE(render_text_line(check).find("pong degraded | Expected: a pong | Actual: late"),
            std::string::npos);
}

TEST_F(TranscriptModel, ExcerptIsCentredOnTheTime) {
  std::string text = start();
  for (int i = 1; i <= 10; ++i) {
    text += Json{{"kind", "event"}, {"t", i}, {"what", "e" + std::to_string(i)}}.dump() + "\n";
  }
  const auto t = read_transcript(write(text));
  const auto lines = transcript_excerpt(t, 5.0, 2, 1);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("e4"), std::string::npos);
  EXPECT_NE(lines[2].find("e6"), std::string::npos);
  const auto last = transcript_excerpt(t, std::nullopt, 2, 1);
  ASSERT_EQ(last.size(), 2u);
  EXPECT_NE(last[1].find("e10"), std::string::npos);
}

}  // namespace
}  // namespace mcpping
