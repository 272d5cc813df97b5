#include "core/text.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

TEST(Text, ShortenKeepsShortTextAndNotesTheFullSize) {
  EXPECT_EQ(shorten("abc", 3), "abc");
  EXPECT_EQ(shorten("abcdef", 3), "abc... (6 bytes)");
}

TEST(Text, ShortenNeverCutsAUtf8Sequence) {
  const std::string text = "a\xC3\xA9z";  // a, e-acute (two bytes), z
  EXPECT_EQ(shorten(text, 2), "a... (4 bytes)");
  EXPECT_EQ(utf8_prefix(text, 2), "a");
  EXPECT_EQ(utf8_prefix(text, 3), "a\xC3\xA9");
  EXPECT_EQ(utf8_prefix(text, 9), text);
}

TEST(Text, SafeDumpReplacesInvalidUtf8) {
  EXPECT_NO_THROW(safe_dump(Json("\xFF")));
  EXPECT_EQ(safe_dump(Json{{"a", 1}}), "{\"a\":1}");
}

TEST(Text, FormatMsHasOneDecimal) { EXPECT_EQ(format_ms(12.345), "12.3"); }

TEST(Text, ShellQuoteKeepsEveryWordWhole) {
  EXPECT_EQ(shell_quote("plain"), "'plain'");
  EXPECT_EQ(shell_quote("two words $HOME"), "'two words $HOME'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(Text, JoinPutsTheSeparatorBetween) {
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join({}, ", "), "");
}

}  // namespace
}  // namespace mcpping
