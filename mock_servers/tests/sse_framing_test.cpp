#include "sse_framing.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

TEST(SseFraming, PlainEventIsOneDataLineAndABlankLine) {
  EXPECT_EQ(sse_event(R"({"id":1})", SseFraming{}), "event: message\ndata: {\"id\":1}\n\n");
  SseFraming unnamed;
  unnamed.event.reset();
  EXPECT_EQ(sse_event(R"({"id":1})", unnamed), "data: {\"id\":1}\n\n");
}

TEST(SseFraming, FieldsComeInOrderWithTheChosenLineEnd) {
  SseFraming f;
  f.prefix = ": keepalive\r\n\r\n";
  f.event = "message";
  f.id = "e7";
  f.retry = 250;
  f.line_end = "\r\n";
  EXPECT_EQ(
      sse_event(R"({"id":1})", f),
      ": keepalive\r\n\r\nevent: message\r\nid: e7\r\nretry: 250\r\ndata: {\"id\":1}\r\n\r\n");
}

// The variants WHATWG allows and http/sse-framing/* sends: CR alone ends a line, and the space
// after a field's colon is optional.
TEST(SseFraming, CrLineEndsAndFieldsWithoutTheSpace) {
  SseFraming f;
  f.line_end = "\r";
  f.field_space = false;
  EXPECT_EQ(sse_event(R"({"id":1})", f), "event:message\rdata:{\"id\":1}\r\r:\r");
}

// eventsource-parser 3.1.1 (the TypeScript SDKs' and @ai-sdk/mcp's parser) and httpx2's SSE
// decoder (the Python SDK's) hold a CR that ends the bytes received until they see whether an
// LF follows, as WHATWG's line ends allow: a ping event ending in a lone CR, then silence
// while the server waited for its pong, was dispatched only when the server wrote again.
// What follows the event's blank line makes its last CR a line end.
TEST(SseFraming, RegressionAnEventEndingInALoneCrWasNotKnownToHaveEnded) {
  SseFraming f;
  f.line_end = "\r";
  const auto event = sse_event(R"({"id":1})", f);
  const auto blank_line = event.find("\r\r");
  ASSERT_NE(blank_line, std::string::npos);
  ASSERT_LT(blank_line + 2, event.size()) << "the blank line's CR ends the write";
  EXPECT_NE(event[blank_line + 2], '\n') << "CR LF would be one line end, not two";
}

TEST(SseFraming, MultilineSpreadsPrettyJsonOverDataLines) {
  SseFraming f;
  f.multiline = true;
  EXPECT_EQ(sse_event(R"({"a":1,"b":2})", f),
            "event: message\ndata: {\ndata:   \"a\": 1,\ndata:   \"b\": 2\ndata: }\n\n");
}

TEST(SseFraming, EmptyDataIsAPrimingEvent) {
  SseFraming f;
  f.event.reset();
  f.id = "p0";
  EXPECT_EQ(sse_event("", f), "id: p0\ndata: \n\n");
}

TEST(SseFraming, ChunkingFollowsTheWriteMode) {
  const std::vector<std::string> events = {"abcde", "xyz"};
  const auto lines = chunk_events(events, WriteMode::Lines, 1);
  EXPECT_EQ(lines.chunks, (std::vector<std::string>{"abcde", "xyz"}));
  EXPECT_EQ(lines.last_chunk, (std::vector<std::size_t>{0, 1}));

  const auto coalesced = chunk_events(events, WriteMode::Coalesced, 1);
  EXPECT_EQ(coalesced.chunks, (std::vector<std::string>{"abcdexyz"}));
  EXPECT_EQ(coalesced.last_chunk, (std::vector<std::size_t>{0, 0}));

  const auto chopped = chunk_events(events, WriteMode::Chopped, 2);
  EXPECT_EQ(chopped.chunks, (std::vector<std::string>{"ab", "cd", "e", "xy", "z"}));
  EXPECT_EQ(chopped.last_chunk, (std::vector<std::size_t>{2, 4}));
  EXPECT_EQ(chopped.chunk_count, (std::vector<std::size_t>{3, 2}));
}

// What a stream wrote, read back as a client reads it: the priming event sets the last event
// ID even without data, events without an id keep it, and a resumption replays what followed
// the named event.
TEST(WrittenEvents, FollowsIdsAndRetryAsAClientParserDoes) {
  WrittenEvents w;
  w.add("id: p1\nretry: 500\ndata: \n\n");
  EXPECT_EQ(w.last_event_id(), "p1");
  EXPECT_EQ(w.retry_ms(), 500);
  const std::string ping = "event: message\ndata: {\"id\":\"a\"}\n\n";
  w.add(ping);
  EXPECT_EQ(w.last_event_id(), "p1") << "an event without an id keeps the last one";
  EXPECT_EQ(w.after("p1"), ping);
  w.add(": a comment\nretry: soon\n\n");
  EXPECT_EQ(w.retry_ms(), 500) << "a retry that is not digits is ignored";
  EXPECT_FALSE(w.after("a").has_value()) << "a message's JSON id is no event id";
}

TEST(WrittenEvents, LinesSpanWritesAndCrlfEndsAnEventAfterItsLf) {
  WrittenEvents w;
  for (const char* piece : {"i", "d: e", "1\r", "\ndata: x\r\n", "\r", "\n", "data: y\r\n\r\n"})
    w.add(piece);
  EXPECT_EQ(w.last_event_id(), "e1");
  EXPECT_EQ(w.after("e1"), "data: y\r\n\r\n");
  w.add("id:\ndata: z\n\n");
  EXPECT_FALSE(w.last_event_id().has_value()) << "an empty id field resets the last event ID";
  EXPECT_TRUE(w.after("e1").has_value());
}

// Found by fuzz/written_events_fuzz: a byte order mark written at the start of a stream (a
// send_raw, an sse prefix) is stripped by a client but was read as part of the first field's
// name, so the mock lost that event's id and refused a resumption from it.
TEST(WrittenEvents, RegressionByteOrderMarkAtTheStartIsStripped) {
  WrittenEvents w;
  for (const char* piece : {"\xEF", "\xBB\xBF", "id: b1\ndata: x\n\n", "data: y\n\n"}) w.add(piece);
  EXPECT_EQ(w.last_event_id(), "b1");
  EXPECT_EQ(w.after("b1"), "data: y\n\n");

  WrittenEvents partial;  // an incomplete mark is text of the first line
  partial.add("\xEF\xBBid: c1\ndata: x\n\n");
  EXPECT_FALSE(partial.last_event_id().has_value());
}

}  // namespace
}  // namespace mcpping
