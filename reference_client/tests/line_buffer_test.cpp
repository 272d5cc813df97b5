#include "line_buffer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mcp::detail {
namespace {

struct Collected {
  std::vector<std::string> lines;
  std::vector<std::size_t> drops;
  LineBuffer::LineHandler on_line() {
    return [this](std::string_view line) { lines.emplace_back(line); };
  }
  LineBuffer::DropHandler on_drop() {
    return [this](std::size_t length) { drops.push_back(length); };
  }
};

TEST(LineBuffer, JoinsChunksAndSplitsCoalescedLines) {
  LineBuffer buffer(100, LineBuffer::Overflow::drop);
  Collected out;
  buffer.feed("{\"a\"", out.on_line(), out.on_drop());
  EXPECT_TRUE(out.lines.empty());
  buffer.feed(":1}\n{\"b\":2}\r\n{\"c\"", out.on_line(), out.on_drop());
  EXPECT_EQ(out.lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  buffer.finish(out.on_line(), out.on_drop());
  EXPECT_EQ(out.lines.back(), "{\"c\"");
}

TEST(LineBuffer, OneByteAtATime) {
  LineBuffer buffer(100, LineBuffer::Overflow::drop);
  Collected out;
  for (const char c : std::string("ab\ncd\n")) {
    buffer.feed(std::string_view(&c, 1), out.on_line(), out.on_drop());
  }
  EXPECT_EQ(out.lines, (std::vector<std::string>{"ab", "cd"}));
}

TEST(LineBuffer, DropsAnOverlongLineWithoutKeepingIt) {
  LineBuffer buffer(8, LineBuffer::Overflow::drop);
  Collected out;
  buffer.feed("0123456", out.on_line(), out.on_drop());
  buffer.feed("789abcdef", out.on_line(), out.on_drop());
  EXPECT_LE(buffer.buffered(), 8u);
  buffer.feed("gh\nok\n", out.on_line(), out.on_drop());
  EXPECT_EQ(out.drops, (std::vector<std::size_t>{18}));
  EXPECT_EQ(out.lines, (std::vector<std::string>{"ok"}));
}

TEST(LineBuffer, ALineOfExactlyTheCapIsKept) {
  LineBuffer buffer(4, LineBuffer::Overflow::drop);
  Collected out;
  buffer.feed("abcd\n", out.on_line(), out.on_drop());
  EXPECT_EQ(out.lines, (std::vector<std::string>{"abcd"}));
  EXPECT_TRUE(out.drops.empty());
}

TEST(LineBuffer, SplitModeEmitsPieces) {
  LineBuffer buffer(4, LineBuffer::Overflow::split);
  Collected out;
  buffer.feed("abcdefghij\n", out.on_line(), out.on_drop());
  buffer.feed("wxyz", out.on_line(), out.on_drop());
  buffer.feed("\nend\n", out.on_line(), out.on_drop());
  EXPECT_EQ(out.lines, (std::vector<std::string>{"abcd", "efgh", "ij", "wxyz", "end"}));
  EXPECT_TRUE(out.drops.empty());
}

TEST(LineBuffer, SplitModeLineEndingAtAPieceBoundaryIsNotFollowedByAnEmptyLine) {
  LineBuffer buffer(4, LineBuffer::Overflow::split);
  Collected out;
  buffer.feed("abcdefgh\n\n", out.on_line(), out.on_drop());
  EXPECT_EQ(out.lines, (std::vector<std::string>{"abcd", "efgh", ""}));
}

// Found by fuzz/line_buffer_fuzz: a line one byte over the cap that ends in CRLF left only
// its '\r' for the last piece, which came out as an empty line.
TEST(LineBuffer, RegressionSplitLineEndingInCrLfPastTheCapGivesNoEmptyPiece) {
  LineBuffer buffer(4, LineBuffer::Overflow::split);
  Collected out;
  buffer.feed("abcd\r\nnext\r\n", out.on_line(), out.on_drop());
  buffer.feed("wxyz\r", out.on_line(), out.on_drop());
  buffer.finish(out.on_line(), out.on_drop());
  EXPECT_EQ(out.lines, (std::vector<std::string>{"abcd", "next", "wxyz"}));
}

// Found by fuzz/line_buffer_fuzz: a '\r' inside a split line that fell at the end of a piece
// was removed as if it ended the line.
TEST(LineBuffer, RegressionSplitPieceEndingInCrKeepsIt) {
  LineBuffer buffer(3, LineBuffer::Overflow::split);
  Collected out;
  buffer.feed("ab\rcd\n", out.on_line(), out.on_drop());
  EXPECT_EQ(out.lines, (std::vector<std::string>{"ab\r", "cd"}));
}

}  // namespace
}  // namespace mcp::detail
