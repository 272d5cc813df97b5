#include "engine/line_splitter.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

using Kind = Incoming::Kind;

TEST(LineSplitter, SplitsAcrossFeeds) {
  LineSplitter s(1024);
  std::vector<Incoming> out;
  const auto now = Clock::now();
  s.feed("{\"a\":", now, out);
  EXPECT_TRUE(out.empty());
  s.feed("1}\n{\"b\":2}\n{\"c\"", now, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].text, "{\"a\":1}");
  EXPECT_EQ(out[1].text, "{\"b\":2}");
  EXPECT_EQ(s.buffered(), 4u);
  const auto rest = s.finish(now);
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->kind, Kind::Unterminated);
  EXPECT_EQ(rest->text, "{\"c\"");
  EXPECT_FALSE(s.finish(now));
}

TEST(LineSplitter, EmptyLinesAreLines) {
  LineSplitter s(1024);
  std::vector<Incoming> out;
  s.feed("\n\n", Clock::now(), out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].kind, Kind::Line);
  EXPECT_EQ(out[0].text, "");
}

TEST(LineSplitter, FloodIsBoundedAndReportedOnce) {
  const std::size_t cap = 2048;
  LineSplitter s(cap);
  std::vector<Incoming> out;
  const std::string block(1000, 'x');
  for (int i = 0; i < 100; ++i) {
    s.feed(block, Clock::now(), out);
    EXPECT_LE(s.buffered(), cap);
  }
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, Kind::Overflow);
  EXPECT_EQ(out[0].text.size(), LineSplitter::kHeadBytes);
  EXPECT_GT(out[0].bytes, cap);
  s.feed("tail\n{\"ok\":1}\n", Clock::now(), out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].kind, Kind::OverflowEnd);
  EXPECT_EQ(out[1].bytes, 100u * 1000u + 4u);
  EXPECT_EQ(out[2].kind, Kind::Line);
  EXPECT_EQ(out[2].text, "{\"ok\":1}");
}

TEST(LineSplitter, LineOfExactlyTheCapPasses) {
  LineSplitter s(1024);
  std::vector<Incoming> out;
  s.feed(std::string(1024, 'y') + "\n", Clock::now(), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, Kind::Line);
  s.feed(std::string(1025, 'y') + "\n", Clock::now(), out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].kind, Kind::Overflow);
  EXPECT_EQ(out[2].kind, Kind::OverflowEnd);
}

}  // namespace
}  // namespace mcpping
