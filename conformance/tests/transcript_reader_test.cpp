#include "conformance/transcript_reader.hpp"

#include <fstream>

#include <gtest/gtest.h>

namespace mcpping {
namespace {

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "mcp-ping-transcript-reader-test";
  std::filesystem::create_directories(dir);
  const auto file = dir / name;
  std::ofstream(file) << text;
  return file;
}

TEST(TranscriptReader, MissingFileMeansTheServerNeverStarted) {
  const auto records = read_transcript("/nonexistent/transcript.jsonl");
  EXPECT_FALSE(records.present);
  EXPECT_TRUE(records.checks.empty());
}

TEST(TranscriptReader, CollectsChecksEndAndFatal) {
  const auto file =
      write_temp("a.jsonl",
                 "{\"t\":0,\"kind\":\"start\"}\n"
                 "{\"t\":1.5,\"kind\":\"check\",\"check\":\"pong\",\"verdict\":\"PASS\"}\n"
                 "{\"t\":2,\"kind\":\"fatal\",\"what\":\"bad script\"}\n"
                 "{\"t\":2.5,\"kind\":\"unsupported\",\"reason\":\"no GET\"}\n"
                 "{\"t\":3,\"kind\":\"end\",\"reason\":\"eof\"}\n");
  const auto records = read_transcript(file);
  EXPECT_TRUE(records.present);
  EXPECT_TRUE(records.ended);
  ASSERT_EQ(records.checks.size(), 1u);
  EXPECT_EQ(records.checks[0]["check"], "pong");
  EXPECT_EQ(records.fatal, "bad script");
  EXPECT_EQ(records.unsupported, "no GET");
  EXPECT_EQ(records.records.size(), 5u);
}

// Regression: a server killed mid-write leaves half a line; the rest must still be read.
TEST(TranscriptReader, TornLastLineIsSkipped) {
  const auto file = write_temp("b.jsonl",
                               "{\"t\":1,\"kind\":\"check\",\"check\":\"a\",\"verdict\":\"PASS\"}\n"
                               "{\"t\":2,\"kind\":\"che");
  const auto records = read_transcript(file);
  EXPECT_EQ(records.checks.size(), 1u);
  EXPECT_FALSE(records.ended);
}

TEST(TranscriptExcerpt, LinesAroundTheTime) {
  std::string text;
  for (int i = 0; i < 30; ++i)
    text += "+ " + std::to_string(i) + ".000ms  line " + std::to_string(i) + "\n";
  const auto file = write_temp("c.txt", text);
  const auto excerpt = transcript_excerpt(file, 10.0, 3, 2);
  ASSERT_EQ(excerpt.size(), 5u);
  EXPECT_NE(excerpt.front().find("line 8"), std::string::npos);
  EXPECT_NE(excerpt[2].find("line 10"), std::string::npos);
  EXPECT_NE(excerpt.back().find("line 12"), std::string::npos);
}

TEST(TranscriptExcerpt, WithoutATimeTheTail) {
  const auto file = write_temp("d.txt", "+ 1.0ms a\n+ 2.0ms b\n+ 3.0ms c\n");
  const auto excerpt = transcript_excerpt(file, std::nullopt, 2, 4);
  ASSERT_EQ(excerpt.size(), 2u);
  EXPECT_NE(excerpt.back().find("c"), std::string::npos);
}

}  // namespace
}  // namespace mcpping
