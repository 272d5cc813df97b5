#include "sse_parser.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace mcp::detail {
namespace {

using namespace std::chrono_literals;

// Feeds `stream` in pieces of `chunk` bytes and collects the events.
std::vector<SseEvent> parse(SseParser& parser, std::string_view stream, std::size_t chunk) {
  std::vector<SseEvent> events;
  const auto sink = [&](const SseEvent& event) { events.push_back(event); };
  for (std::size_t pos = 0; pos < stream.size(); pos += chunk) {
    parser.feed(stream.substr(pos, chunk), sink);
  }
  return events;
}

std::vector<SseEvent> parse(std::string_view stream, std::size_t chunk = 1 << 20) {
  SseParser parser;
  return parse(parser, stream, chunk);
}

TEST(SseParser, ParsesOneMessageEvent) {
  const auto events = parse("data: {\"id\":1}\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "message");
  EXPECT_EQ(events[0].data, "{\"id\":1}");
  EXPECT_EQ(events[0].last_event_id, "");
}

TEST(SseParser, GivesTheSameEventsForEveryChunking) {
  const std::string stream =
      ": keep-alive\r\n"
      "event: endpoint\r\ndata: /message?sessionId=a\r\n\r\n"
      "id: 7\nretry: 250\ndata: {\"a\":\ndata: 1}\n\n"
      "data: x\r\r"
      "event: message\rdata: {\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\r\n\r\n";
  const auto whole = parse(stream);
  ASSERT_EQ(whole.size(), 4u);
  EXPECT_EQ(whole[0].type, "endpoint");
  EXPECT_EQ(whole[0].data, "/message?sessionId=a");
  EXPECT_EQ(whole[1].data, "{\"a\":\n1}");  // multi-line data joined with LF
  EXPECT_EQ(whole[1].last_event_id, "7");
  EXPECT_EQ(whole[2].data, "x");  // CR alone ends a line
  EXPECT_EQ(whole[3].type, "message");
  EXPECT_EQ(whole[3].last_event_id, "7");  // the id persists until changed
  for (std::size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    SseParser parser;
    const auto events = parse(parser, stream, chunk);
    ASSERT_EQ(events.size(), whole.size()) << "chunk size " << chunk;
    for (std::size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(events[i].type, whole[i].type) << "chunk size " << chunk;
      EXPECT_EQ(events[i].data, whole[i].data) << "chunk size " << chunk;
      EXPECT_EQ(events[i].last_event_id, whole[i].last_event_id) << "chunk size " << chunk;
    }
    EXPECT_EQ(parser.retry(), 250ms);
  }
}

TEST(SseParser, ACrLfSplitBetweenChunksIsOneLineEnd) {
  SseParser parser;
  std::vector<SseEvent> events;
  const auto sink = [&](const SseEvent& event) { events.push_back(event); };
  parser.feed("data: a\r", sink);
  parser.feed("\ndata: b\r", sink);
  parser.feed("\n\r", sink);
  parser.feed("\n", sink);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a\nb");  // not "a", "", "b": no empty line in between
}

TEST(SseParser, CommentsAreIgnored) {
  const auto events = parse(":\r\n: ping\n:\n\ndata: 1\n: inside an event\ndata: 2\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "1\n2");
}

TEST(SseParser, APrimingEventSetsTheIdAndHasEmptyData) {
  SseParser parser;
  const auto events = parse(parser, "id: prime-0\ndata:\n\nid: only-id\n\n", 3);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "");
  EXPECT_EQ(events[0].last_event_id, "prime-0");
  EXPECT_EQ(parser.last_event_id(), "only-id");  // an event without data dispatches nothing
}

TEST(SseParser, FieldValuesLoseOneLeadingSpaceOnly) {
  const auto events = parse("data:no-space\ndata:  two\ndata\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "no-space\n two\n");  // a bare "data" line adds an empty line
}

TEST(SseParser, InvalidRetryAndIdWithNulAreIgnored) {
  SseParser parser;
  const char stream[] = "retry: 12a\nretry: -5\nid: a\0b\ndata: x\n\n";
  parse(parser, std::string_view(stream, sizeof stream - 1), 1);
  EXPECT_FALSE(parser.retry());
  EXPECT_EQ(parser.last_event_id(), "");
  parse(parser, "retry: 3000\nretry:\n\n", 1);
  EXPECT_EQ(parser.retry(), 3000ms);
}

TEST(SseParser, EmptyIdResetsTheLastEventId) {
  SseParser parser;
  parse(parser, "id: 5\ndata: a\n\nid\ndata: b\n\n", 2);
  EXPECT_EQ(parser.last_event_id(), "");
}

TEST(SseParser, UnknownFieldsAndEventTypesPassThrough) {
  const auto events = parse("foo: bar\nevent: custom\ndata: x\n\ndata: y\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, "custom");
  EXPECT_EQ(events[1].type, "message");  // the type does not carry over
}

TEST(SseParser, AByteOrderMarkAtTheStartIsStripped) {
  const auto events = parse(
      "\xEF\xBB\xBF"
      "data: x\n\n",
      1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "x");
}

TEST(SseParser, AnIncompleteEventAtTheEndOfTheStreamIsDiscarded) {
  SseParser parser;
  std::vector<SseEvent> events;
  const auto sink = [&](const SseEvent& event) { events.push_back(event); };
  parser.feed("id: 1\ndata: complete\n\ndata: cut off", sink);
  parser.end_of_stream();
  parser.feed("\n\ndata: next\n\n", sink);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].data, "next");
  EXPECT_EQ(parser.last_event_id(), "1");  // kept for the reconnection
}

TEST(SseParser, AnOversizedEventIsDroppedAndTheNextOneStillParses) {
  SseParser parser(64);
  const std::string big = "data: " + std::string(100, 'x') + "\ndata: more\n\n";
  const auto events = parse(parser, big + "data: small\n\n", 7);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "small");
  EXPECT_EQ(parser.dropped_events(), 1u);
}

// Found by fuzz/sse_parser_fuzz: the id of an event the end of the stream cut off became the
// last event ID, so a resumption asked for an event the client never received.
TEST(SseParser, RegressionIdOfAnEventCutOffByTheEndIsNotTheLastEventId) {
  SseParser parser;
  std::vector<SseEvent> events;
  const auto sink = [&](const SseEvent& event) { events.push_back(event); };
  parser.feed("id: 1\ndata: complete\n\nid: 2\ndata: cut off", sink);
  EXPECT_EQ(parser.last_event_id(), "1");
  parser.end_of_stream();
  EXPECT_EQ(parser.last_event_id(), "1");
  parser.feed("data: next\n\n", sink);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].last_event_id, "1");
}

}  // namespace
}  // namespace mcp::detail
