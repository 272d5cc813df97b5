#include "engine/transcript.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "test_support.hpp"

namespace mcpping {
namespace {

std::vector<std::string> lines_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class TranscriptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("mcp-transcript-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(TranscriptTest, WritesBothFilesFlushedPerRecord) {
  Transcript t(dir_);
  t.start(42, "ping/x", "stdio", "2025-11-25");
  const Json ping = Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  t.frame(Direction::ServerToClient, ping.dump(), &ping, 5);
  // Readable while the transcript is still open: nothing waits for a close.
  auto jsonl = lines_of(dir_ / "transcript.jsonl");
  ASSERT_EQ(jsonl.size(), 2u);
  const auto start = Json::parse(jsonl[0]);
  EXPECT_EQ(start["kind"], Json("start"));
  EXPECT_EQ(start["pid"], Json(42));
  const auto frame = Json::parse(jsonl[1]);
  EXPECT_EQ(frame["dir"], Json("s2c"));
  EXPECT_EQ(frame["writes"], Json(5));
  EXPECT_EQ(frame["json"], ping);
  const auto txt = lines_of(dir_ / "transcript.txt");
  ASSERT_EQ(txt.size(), 2u);
  EXPECT_NE(txt[0].find("start     ping/x on stdio, revision 2025-11-25"), std::string::npos);
  EXPECT_NE(txt[1].find("server>"), std::string::npos);
  EXPECT_NE(txt[1].find("[5 writes]"), std::string::npos);
}

TEST_F(TranscriptTest, RecordsOfAFileTranscriptAreItsFileReadBack) {
  // Kept on disk only: a flood of client bytes must not grow the server's memory.
  Transcript t(dir_);
  t.start(7, "ping/x", "stdio", "2025-11-25");
  t.raw(Direction::ClientToServer, "garbage", 7);
  t.end("done");
  const auto records = t.records();
  const auto jsonl = lines_of(dir_ / "transcript.jsonl");
  ASSERT_EQ(records.size(), 3u);
  ASSERT_EQ(jsonl.size(), 3u);
  for (std::size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i], Json::parse(jsonl[i]));
  EXPECT_EQ(records[1]["text"], Json("garbage"));
}

TEST(Transcript, InMemoryTranscriptKeepsItsRecords) {
  Transcript t;
  t.event("first");
  t.event("second");
  const auto records = t.records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1]["what"], Json("second"));
}

TEST_F(TranscriptTest, TimestampsAreMonotonic) {
  Transcript t(dir_);
  for (int i = 0; i < 200; ++i) t.event("e" + std::to_string(i));
  double last = -1;
  for (const auto& line : lines_of(dir_ / "transcript.jsonl")) {
    const auto t_ms = Json::parse(line)["t"].get<double>();
    EXPECT_GE(t_ms, last);
    last = t_ms;
  }
}

TEST_F(TranscriptTest, LongPayloadsAreShortenedInTheTextFileOnly) {
  Transcript t(dir_);
  const std::string big = "{\"x\":\"" + std::string(5000, 'a') + "\"}";
  const auto parsed = Json::parse(big);
  t.frame(Direction::ClientToServer, big, &parsed);
  EXPECT_EQ(Json::parse(lines_of(dir_ / "transcript.jsonl")[0])["text"].get<std::string>(), big);
  const auto txt = lines_of(dir_ / "transcript.txt")[0];
  EXPECT_LT(txt.size(), 500u);
  EXPECT_NE(txt.find("(" + std::to_string(big.size()) + " bytes)"), std::string::npos);
}

TEST_F(TranscriptTest, InvalidUtf8FromTheClientIsKept) {
  Transcript t(dir_);
  t.raw(Direction::ClientToServer, std::string("bad \xff\xfe bytes"));
  const auto record = Json::parse(lines_of(dir_ / "transcript.jsonl")[0]);
  EXPECT_EQ(record["kind"], Json("raw"));
  EXPECT_NE(record["text"].get<std::string>().find("bad"), std::string::npos);
}

TEST_F(TranscriptTest, CheckRecordsAreSelfDescribing) {
  Transcript t(dir_);
  CheckRecord r;
  r.check = CheckDef{"pong", Level::Must, {"ping.respond-promptly"}};
  r.outcome = Outcome::Broken;
  r.expected = "response within 2000 ms";
  r.actual = "nothing";
  r.latency_ms = {1.5};
  t.check(r);
  const auto record = Json::parse(lines_of(dir_ / "transcript.jsonl")[0]);
  EXPECT_EQ(record["check"], Json("pong"));
  EXPECT_EQ(record["level"], Json("MUST"));
  EXPECT_EQ(record["spec"], Json::array({"ping.respond-promptly"}));
  EXPECT_EQ(record["outcome"], Json("broken"));
  EXPECT_EQ(record["latency_ms"], Json::array({1.5}));
  EXPECT_NE(lines_of(dir_ / "transcript.txt")[0].find(
                "pong broken | Expected: response within 2000 ms | Actual: nothing"),
            std::string::npos);
}

TEST_F(TranscriptTest, EndIsRecordedOnce) {
  Transcript t(dir_);
  EXPECT_TRUE(t.end("eof"));
  EXPECT_FALSE(t.end("SIGTERM"));
  const auto ends = test::records_of(t.records(), "end");
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0]["reason"], Json("eof"));
}

TEST(Transcript, FailsLoudlyWhenTheFolderCannotBeCreated) {
  EXPECT_THROW(Transcript(std::filesystem::path("/proc/no-such-dir/x")), std::runtime_error);
}

}  // namespace
}  // namespace mcpping
