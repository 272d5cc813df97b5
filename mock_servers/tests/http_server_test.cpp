// The HTTP host end to end, in process: a real HttpChannel on a free loopback port running
// the interpreter, driven by httplib clients. Every wait is bounded.
#include <gtest/gtest.h>
#include <httplib.h>

#include <set>
#include <thread>

#include "http_harness.hpp"

namespace mcpping {
namespace {

using namespace test::http;
using test::check_def;
using test::find_check;
using test::records_of;

TEST(HttpServer, PingOnThePostStreamIsAnsweredByASeparatePostGetting202) {
  Harness h(Json::array({{{"handshake", Json::object()}},
                         expect_call(),
                         {{"send", ping_frame("p1")}, {"label", "ping"}},
                         {{"expect_response", "ping"}, {"check", check_def("pong")}},
                         {{"expect_post", "ping"},
                          {"http",
                           {{"status", 202},
                            {"headers",
                             {{"mcp-session-id", {{"$type", "string"}}},
                              {"accept", {{"$contains", "text/event-stream"}}}}}}},
                          {"check", check_def("pong-post")}},
                         {{"respond", "call"}, {"default", true}}}));
  const auto session = handshake(h);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  const auto first = call.wait_for("\"ping\"");
  EXPECT_EQ(call.header("Content-Type"), "text/event-stream");
  ASSERT_EQ(data_messages(first).size(), 1u) << first;
  EXPECT_EQ(data_messages(first)[0], ping_frame("p1"));

  Client c(h.port());
  auto answer = c.post(pong("p1"), headers(session, "2025-11-25"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 202);
  EXPECT_TRUE(answer->body.empty());

  const auto all = call.wait_end();
  const auto messages = data_messages(all);
  ASSERT_EQ(messages.size(), 2u) << all;
  EXPECT_EQ(messages[1]["id"], 2);
  EXPECT_EQ(messages[1]["result"]["content"][0]["text"], "hi");
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pong")["outcome"], "met");
  EXPECT_EQ(find_check(records, "pong-post")["outcome"], "met")
      << find_check(records, "pong-post").dump();
  bool framed = false;
  for (const auto& r : records_of(records, "frame"))
    if (r.value("dir", "") == "s2c" && r.value("stream", "") == "post:2") framed = true;
  EXPECT_TRUE(framed);
  EXPECT_FALSE(records_of(records, "http").empty());
}

// Regression: frames coalesced into one SSE chunk share one write; the second frame's wait
// found the first one's record consumed, reported "the stream ended" and stopped the script.
TEST(HttpServer, CoalescedFramesOnOneStreamAreAllReportedWritten) {
  Harness h(
      Json::array({{{"handshake", Json::object()}},
                   expect_call(),
                   {{"send", Json::array({ping_frame("c1"), ping_frame("c2"), ping_frame("c3")})},
                    {"label", "pings"},
                    {"write", "coalesced"}},
                   {{"expect_response", "pings"}, {"check", check_def("pongs")}},
                   {{"respond", "call"}, {"default", true}}}));
  const auto session = handshake(h);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  const auto first = call.wait_for("\"c3\"");
  ASSERT_EQ(data_messages(first).size(), 3u) << first;
  Client c(h.port());
  for (const char* id : {"c1", "c2", "c3"}) {
    auto answer = c.post(pong(id), headers(session, "2025-11-25"));
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 202);
  }
  call.wait_end();
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pongs")["outcome"], "met") << find_check(records, "pongs").dump();
  for (const auto& r : records_of(records, "event")) {
    EXPECT_EQ(r.value("what", "").find("write failed"), std::string::npos) << r.dump();
  }
}

TEST(HttpServer, PingOnTheGetStream) {
  Harness h(Json::array({{{"handshake", Json::object()}},
                         {{"await_get_stream", Json::object()}},
                         {{"send", ping_frame("g1")}, {"label", "ping"}, {"on", "get"}},
                         {{"expect_response", "ping"}, {"check", check_def("pong")}}}));
  const auto session = handshake(h);
  auto get_headers = headers(session, "2025-11-25");
  get_headers.erase("Accept");
  get_headers.emplace("Accept", "text/event-stream");
  StreamReader get(h.port(), "GET", "/mcp", get_headers);
  const auto bytes = get.wait_for("\"g1\"");
  EXPECT_EQ(get.status(), 200);
  ASSERT_EQ(data_messages(bytes).size(), 1u) << bytes;
  // A second GET stream for the same session is refused.
  Client c(h.port());
  auto second = c.cli.Get("/mcp", get_headers);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 409);
  auto answer = c.post(pong("g1"), headers(session, "2025-11-25"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 202);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  EXPECT_EQ(find_check(h.records(), "pong")["outcome"], "met");
  bool opened = false;
  for (const auto& r : records_of(h.records(), "sse"))
    if (r["stream"] == "get" && r["what"] == "open") opened = true;
  EXPECT_TRUE(opened);
}

TEST(HttpServer, AwaitGetStreamWithoutOneIsUnsupported) {
  Harness h(Json::array({{{"handshake", Json::object()}},
                         {{"await_get_stream", Json::object()}, {"within", "quiet_ms"}},
                         {{"send", ping_frame("never")}, {"on", "get"}}}));
  const auto session = handshake(h);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto unsupported = records_of(h.records(), "unsupported");
  ASSERT_EQ(unsupported.size(), 1u);
  EXPECT_NE(unsupported[0]["reason"].get<std::string>().find("GET"), std::string::npos);
  for (const auto& r : records_of(h.records(), "frame"))
    EXPECT_EQ(r["text"].get<std::string>().find("never"), std::string::npos)
        << "the script stopped before its send";
}

// ---- resumable streams (2025-11-25) ----

httplib::Headers resume_headers(const std::string& session, const std::string& last_event_id) {
  auto h = headers(session, "2025-11-25");
  h.erase("Accept");
  h.emplace("Accept", "text/event-stream");
  if (!last_event_id.empty()) h.emplace("Last-Event-ID", last_event_id);
  return h;
}

// The call's POST gets the priming event, then its connection closes with the call open.
Json resumed_call_script(const std::string& priming, const Json& resumed_check,
                         const Json& after = Json::array()) {
  auto script = Json::array({{{"handshake", Json::object()}},
                             expect_call(),
                             {{"send_raw", priming}, {"on", "post:call"}},
                             {{"disconnect", "post:call"}},
                             resumed_check});
  for (const auto& step : after) script.push_back(step);
  return script;
}

// POSTs tools/call 2 and reads its stream until the server closes the connection.
std::string until_disconnected(Harness& h, const std::string& session) {
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  auto bytes = call.wait_end();
  EXPECT_EQ(call.status(), 200);
  return bytes;
}

TEST(HttpServer, ADisconnectedPostStreamIsResumedByAGetWithItsLastEventId) {
  Harness h(resumed_call_script(
      "id: p1\nretry: 0\ndata: \n\n",
      {{"await_resume", "post:call"},
       {"check", check_def("resumed", "SHOULD")},
       {"retry_check", check_def("waited-retry")}},
      Json::array({{{"send", ping_frame("r1")}, {"label", "ping"}, {"on", "post:call"}},
                   {{"expect_response", "ping"}, {"check", check_def("pong")}},
                   {{"respond", "call"}, {"default", true}, {"on", "post:call"}}})));
  const auto session = handshake(h);
  EXPECT_EQ(until_disconnected(h, session), "id: p1\nretry: 0\ndata: \n\n")
      << "the call is not answered";
  // A listening stream may be open: the resumption is not a second listening stream.
  StreamReader listening(h.port(), "GET", "/mcp", resume_headers(session, ""));
  EXPECT_EQ(listening.status(), 200);
  StreamReader resumed(h.port(), "GET", "/mcp", resume_headers(session, "p1"));
  const auto first = resumed.wait_for("\"r1\"");
  EXPECT_EQ(resumed.status(), 200);
  ASSERT_EQ(data_messages(first).size(), 1u) << first;
  Client c(h.port());
  auto answer = c.post(pong("r1"), headers(session, "2025-11-25"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 202);
  const auto messages = data_messages(resumed.wait_end());
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1]["id"], 2) << "the call's result ends the resumed stream";
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");

  const auto records = h.records();
  EXPECT_EQ(find_check(records, "resumed")["outcome"], "met") << find_check(records, "resumed");
  EXPECT_EQ(find_check(records, "waited-retry")["outcome"], "met");
  EXPECT_EQ(find_check(records, "pong")["outcome"], "met");
  bool resumes = false;
  for (const auto& r : records_of(records, "http"))
    if (r.value("resumes", "") == "post:2") resumes = true;
  EXPECT_TRUE(resumes);
  std::vector<std::string> post_closes;
  for (const auto& r : records_of(records, "sse"))
    if (r["stream"] == "post:2" && r["what"] == "close") post_closes.push_back(r["reason"]);
  ASSERT_EQ(post_closes.size(), 2u);
  EXPECT_EQ(post_closes[0].rfind("disconnected", 0), 0u) << post_closes[0];
  EXPECT_EQ(post_closes[1], "ended");
  for (const auto& r : records_of(records, "frame")) {
    if (r.value("dir", "") == "s2c" && r["json"].value("id", Json()) == "r1") {
      EXPECT_EQ(r["stream"], "post:2");
    }
  }
}

// "The server MAY use this header to replay messages that would have been sent after the last
// event ID, on the stream that was disconnected": resuming from an earlier event replays what
// followed it, and the check says the client did not name its last event.
TEST(HttpServer, ResumingFromAnEarlierEventReplaysWhatFollowedIt) {
  Harness h(Json::array(
      {{{"handshake", Json::object()}},
       expect_call(),
       {{"send", ping_frame("a")}, {"label", "a"}, {"on", "post:call"}, {"sse", {{"id", "e1"}}}},
       {{"send", ping_frame("b")}, {"label", "b"}, {"on", "post:call"}, {"sse", {{"id", "e2"}}}},
       {{"disconnect", "post:call"}},
       {{"await_resume", "post:call"}, {"check", check_def("resumed", "SHOULD")}},
       {{"respond", "call"}, {"default", true}, {"on", "post:call"}}}));
  const auto session = handshake(h);
  ASSERT_EQ(data_messages(until_disconnected(h, session)).size(), 2u);
  StreamReader resumed(h.port(), "GET", "/mcp", resume_headers(session, "e1"));
  const auto bytes = resumed.wait_end();
  const auto messages = data_messages(bytes);
  ASSERT_EQ(messages.size(), 2u) << bytes;
  EXPECT_EQ(messages[0], ping_frame("b")) << "replayed";
  EXPECT_EQ(bytes.rfind("event: message\nid: e2\n", 0), 0u) << bytes;
  EXPECT_EQ(messages[1]["id"], 2);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto check = find_check(h.records(), "resumed");
  EXPECT_EQ(check["outcome"], "degraded");
  EXPECT_NE(check["actual"].get<std::string>().find("\"e2\""), std::string::npos) << check;
}

// The retry field is a lower bound: a GET sooner than it breaks the retry check, and what the
// client never named opens a plain listening stream, not a resumption.
TEST(HttpServer, AResumeSoonerThanTheRetryFieldBreaksTheRetryCheck) {
  Harness h(resumed_call_script("id: p1\nretry: 60000\ndata: \n\n",
                                {{"await_resume", "post:call"},
                                 {"check", check_def("resumed", "SHOULD")},
                                 {"retry_check", check_def("waited-retry")}},
                                Json::array({{{"respond", "call"}, {"default", true}}})));
  const auto session = handshake(h);
  until_disconnected(h, session);
  StreamReader unknown(h.port(), "GET", "/mcp", resume_headers(session, "nope"));
  EXPECT_EQ(unknown.status(), 200);
  StreamReader resumed(h.port(), "GET", "/mcp", resume_headers(session, "p1"));
  EXPECT_EQ(data_messages(resumed.wait_end()).size(), 1u);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "resumed")["outcome"], "met");
  const auto retry = find_check(records, "waited-retry");
  EXPECT_EQ(retry["outcome"], "broken") << retry;
  EXPECT_NE(retry["expected"].get<std::string>().find("60000"), std::string::npos) << retry;
}

// A client that SHOULD resume and does not: the check is broken, the script stops there, and
// the `unsupported` record tells the runner that what needed the stream is not judged. The
// session's end stops the disconnected stream, so the call's default answer fails at once.
TEST(HttpServer, AStreamNobodyResumesBreaksTheCheckAndMarksTheRestUnjudged) {
  Harness h(resumed_call_script(
      "id: p1\ndata: \n\n",
      {{"await_resume", "post:call"}, {"check", check_def("resumed", "SHOULD")}},
      Json::array({{{"send", ping_frame("never")}, {"label", "ping"}, {"on", "post:call"}}})));
  const auto session = handshake(h);
  until_disconnected(h, session);
  StreamReader listening(h.port(), "GET", "/mcp", resume_headers(session, ""));
  EXPECT_EQ(listening.status(), 200);
  delete_session(h, session);  // the client gives up: the step need not wait its bound
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  const auto check = find_check(records, "resumed");
  EXPECT_EQ(check["outcome"], "broken");
  EXPECT_NE(check["actual"].get<std::string>().find("without Last-Event-ID"), std::string::npos)
      << check;
  ASSERT_EQ(records_of(records, "unsupported").size(), 1u);
  for (const auto& r : records_of(records, "frame"))
    EXPECT_EQ(r["text"].get<std::string>().find("never"), std::string::npos);
}

// The listening stream gets an event with an id and a retry field, its connection closes
// without ending it (2025-11-25: "it SHOULD follow the same polling behavior as described for
// POST requests"), and the server pings on the stream the client reconnects.
Json get_resume_script(const std::string& priming) {
  return Json::array({{{"handshake", Json::object()}},
                      {{"await_get_stream", Json::object()}},
                      {{"send_raw", priming}, {"on", "get"}},
                      {{"disconnect", "get"}},
                      {{"await_resume", "get"},
                       {"check", check_def("reconnected", "MAY")},
                       {"last_event_id_check", check_def("last-event-id", "SHOULD")},
                       {"retry_check", check_def("waited-retry")}},
                      {{"send", ping_frame("g1")}, {"label", "ping"}, {"on", "get"}},
                      {{"expect_response", "ping"}, {"check", check_def("pong")}}});
}

// Opens the listening stream and reads it until the server closes the connection.
std::string get_until_disconnected(Harness& h, const std::string& session) {
  StreamReader get(h.port(), "GET", "/mcp", resume_headers(session, ""));
  auto bytes = get.wait_end();
  EXPECT_EQ(get.status(), 200);
  return bytes;
}

// Reconnects with `last_event_id` ("" for none), answers the ping there, ends the session.
Json reconnect_and_pong(Harness& h, const std::string& session, const std::string& last_event_id) {
  StreamReader get(h.port(), "GET", "/mcp", resume_headers(session, last_event_id));
  const auto bytes = get.wait_for("\"g1\"");
  EXPECT_EQ(get.status(), 200) << "no 409: the disconnected stream is the session's only one";
  EXPECT_EQ(data_messages(bytes).size(), 1u) << bytes;
  Client c(h.port());
  auto answer = c.post(pong("g1"), headers(session, "2025-11-25"));
  EXPECT_TRUE(answer && answer->status == 202);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  return h.records();
}

TEST(HttpServer, ADisconnectedGetStreamIsResumedByAGetWithItsLastEventId) {
  Harness h(get_resume_script("id: g-prime\nretry: 0\ndata: \n\n"));
  const auto session = handshake(h);
  EXPECT_EQ(get_until_disconnected(h, session), "id: g-prime\nretry: 0\ndata: \n\n");
  const auto records = reconnect_and_pong(h, session, "g-prime");
  for (const auto* id : {"reconnected", "last-event-id", "waited-retry", "pong"})
    EXPECT_EQ(find_check(records, id)["outcome"], "met") << find_check(records, id);
  bool resumes = false;
  for (const auto& r : records_of(records, "http"))
    if (r.value("resumes", "") == "get") resumes = true;
  EXPECT_TRUE(resumes);
}

// A GET without Last-Event-ID, before the retry delay: the client reconnected (a fresh stream
// replaces the old one, and the ping goes there), but broke the header's SHOULD and the retry
// field's MUST.
TEST(HttpServer, AGetStreamReconnectedWithoutLastEventIdBreaksOnlyThoseChecks) {
  Harness h(get_resume_script("id: g-prime\nretry: 60000\ndata: \n\n"));
  const auto session = handshake(h);
  get_until_disconnected(h, session);
  const auto records = reconnect_and_pong(h, session, "");
  EXPECT_EQ(find_check(records, "reconnected")["outcome"], "met");
  EXPECT_EQ(find_check(records, "pong")["outcome"], "met");
  const auto header = find_check(records, "last-event-id");
  EXPECT_EQ(header["outcome"], "broken");
  EXPECT_NE(header["actual"].get<std::string>().find("without Last-Event-ID"), std::string::npos)
      << header;
  EXPECT_EQ(find_check(records, "waited-retry")["outcome"], "broken");
  EXPECT_TRUE(records_of(records, "unsupported").empty());
}

// Reconnecting the listening stream is the client's choice ("The client MAY issue an HTTP
// GET"): without it the MAY check is broken and what needed the stream is not judged.
TEST(HttpServer, AGetStreamNobodyReconnectsMarksTheRestUnjudged) {
  Harness h(get_resume_script("id: g-prime\ndata: \n\n"));
  const auto session = handshake(h);
  get_until_disconnected(h, session);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "reconnected")["outcome"], "broken");
  ASSERT_EQ(records_of(records, "unsupported").size(), 1u);
  for (const auto& r : records_of(records, "frame"))
    EXPECT_EQ(r["text"].get<std::string>().find("g1"), std::string::npos);
}

TEST(HttpServer, ADisconnectNeedsAnOpenUnansweredPost) {
  Harness h(Json::array({{{"handshake", Json::object()}},
                         expect_call(),
                         {{"respond", "call"}, {"default", true}},
                         {{"disconnect", "post:call"}}}));
  const auto session = handshake(h);
  Client c(h.port());
  auto answered = c.post(call_request(2), headers(session, "2025-11-25"));
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->get_header_value("Content-Type"), "application/json");
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  bool stopped = false;
  for (const auto& r : records_of(h.records(), "event"))
    if (r.value("what", "")
            .find("cannot disconnect post:2: the POST of request 2 has no open "
                  "stream") == 0)
      stopped = true;
  EXPECT_TRUE(stopped);
}

class FailNextPost : public ::testing::TestWithParam<std::string> {};

TEST_P(FailNextPost, TheMatchingPostGetsTheFaultAndStillReachesTheScript) {
  const std::string with = GetParam();
  const Json with_json = with == "reset" ? Json(with) : Json(std::stoi(with));
  const Json status = with == "reset" ? Json(0) : Json(std::stoi(with));
  Harness h(Json::array({{{"handshake", Json::object()}},
                         expect_call(),
                         {{"fail_next_post", {{"id", "p1"}}}, {"with", with_json}},
                         {{"send", ping_frame("p1")}, {"label", "ping"}},
                         {{"expect_post", "ping"},
                          {"http", {{"status", status}, {"fault", with}}},
                          {"check", check_def("faulted")}},
                         {{"respond", "call"}, {"default", true}}}));
  const auto session = handshake(h);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  call.wait_for("\"p1\"");
  Client c(h.port());
  auto answer = c.post(pong("p1"), headers(session, "2025-11-25"));
  if (with == "reset") {
    EXPECT_FALSE(answer) << "the connection is dropped without a response";
  } else {
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, std::stoi(with));
  }
  EXPECT_EQ(data_messages(call.wait_end()).size(), 2u);
  if (with == "404") {
    // The 404 ended the session: its DELETE names a session that is gone.
    auto gone = c.cli.Delete("/mcp", headers(session, "2025-11-25"));
    ASSERT_TRUE(gone);
    EXPECT_EQ(gone->status, 404);
    h.channel().stop();
    h.finish();
  } else {
    delete_session(h, session);
    EXPECT_EQ(h.finish(), "eof");
  }
  EXPECT_EQ(find_check(h.records(), "faulted")["outcome"], "met")
      << find_check(h.records(), "faulted").dump();
}

INSTANTIATE_TEST_SUITE_P(HttpServer, FailNextPost, ::testing::Values("500", "404", "reset"));

Json four_oh_four_script() {
  return Json::array(
      {{{"handshake", Json::object()}},
       expect_call(),
       {{"fail_next_post", {{"id", "p1"}}}, {"with", 404}},
       {{"send", ping_frame("p1")}, {"label", "ping"}, {"on", "post:call"}},
       {{"expect_response", "ping"}, {"check", check_def("pong-attempted")}},
       {{"respond", "call"}, {"default", true}, {"on", "post:call"}},
       {{"handshake", Json::object()}, {"as", "again"}, {"check", check_def("new-session")}},
       {{"serve_defaults", Json::object()}}});
}

// Regression (ping/pong-post-fails/404 never required a new session): the 404 fault ended
// nothing, so a client that kept its session passed. Now the 404 ends the session for every
// later request that names it, the call's result still goes out on its open stream, and only a
// new initialize without Mcp-Session-Id starts the session the next request is served on.
TEST(HttpServer, APongPostAnswered404EndsTheSessionButNotTheOpenStream) {
  Harness h(four_oh_four_script());
  const auto session = handshake(h);
  auto get_headers = headers(session, "2025-11-25");
  get_headers.erase("Accept");
  get_headers.emplace("Accept", "text/event-stream");
  auto get = std::make_unique<StreamReader>(h.port(), "GET", "/mcp", get_headers);
  EXPECT_EQ(get->status(), 200);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  call.wait_for("\"p1\"");
  Client c(h.port());
  auto answer = c.post(pong("p1"), headers(session, "2025-11-25"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 404);
  const auto delivered = data_messages(call.wait_end());
  ASSERT_EQ(delivered.size(), 2u) << "the open stream still carries the call's result";
  EXPECT_EQ(delivered[1]["id"], 2);
  // The old session is gone for good; its GET stream closing does not end the run: the
  // client is expected back with a new session.
  const Json list = {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}};
  auto stale = c.post(list, headers(session, "2025-11-25"));
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 404);
  get.reset();
  const auto renewed = handshake(h);
  EXPECT_NE(renewed, session);
  auto fresh = c.post(list, headers(renewed, "2025-11-25"));
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->status, 200);
  EXPECT_EQ(Json::parse(fresh->body)["result"]["tools"][0]["name"], "echo");
  delete_session(h, renewed);
  EXPECT_EQ(h.finish(), "eof");

  const auto records = h.records();
  EXPECT_EQ(find_check(records, "new-session")["outcome"], "met")
      << find_check(records, "new-session").dump();
  EXPECT_EQ(test::count_checks(records, "handshake"), 1u);
  bool stale_recorded = false;
  for (const auto& r : records_of(records, "http")) {
    if (r["status"] == 404 && r.value("note", "").find("ended by the server") != std::string::npos)
      stale_recorded = true;
  }
  EXPECT_TRUE(stale_recorded) << "a request naming the ended session is recorded as a 404";
  std::vector<std::string> negotiated;
  for (const auto& r : records_of(records, "event"))
    if (r.contains("negotiated")) negotiated.push_back(r["negotiated"]);
  EXPECT_EQ(negotiated, (std::vector<std::string>{"2025-11-25", "2025-11-25"}));
}

// A new session starts "without a session ID attached": an initialize that still carries the
// ended session's id is answered (a lenient server), and fails the check.
TEST(HttpServer, AReinitializeCarryingTheOldSessionIdBreaksTheNewSessionCheck) {
  Harness h(four_oh_four_script());
  const auto session = handshake(h);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  call.wait_for("\"p1\"");
  Client c(h.port());
  ASSERT_EQ(c.post(pong("p1"), headers(session, "2025-11-25"))->status, 404);
  call.wait_end();
  auto init = c.post(initialize_request(), headers(session, "2025-11-25"));
  ASSERT_TRUE(init);
  EXPECT_EQ(init->status, 200);
  const auto renewed = init->get_header_value("Mcp-Session-Id");
  ASSERT_EQ(c.post(kInitialized, headers(renewed, "2025-11-25"))->status, 202);
  delete_session(h, renewed);
  EXPECT_EQ(h.finish(), "eof");
  const auto check = find_check(h.records(), "new-session");
  EXPECT_EQ(check["outcome"], "broken");
  EXPECT_NE(check["actual"].get<std::string>().find("carrying Mcp-Session-Id"), std::string::npos)
      << check;
}

TEST(HttpServer, SseFramingOptionsGiveTheExactBytes) {
  Harness h(
      Json::array({{{"handshake", Json::object()}},
                   expect_call(),
                   {{"send", ping_frame("a")},
                    {"sse",
                     {{"line_end", "\r\n"},
                      {"prefix", ": hello\r\n\r\n"},
                      {"id", "e1"},
                      {"retry", 500},
                      {"event", "message"}}}},
                   {{"send", ping_frame("b")}, {"sse", {{"multiline", true}, {"event", nullptr}}}},
                   {{"send", ping_frame("c")}, {"write", "chopped"}, {"chunk", 7}},
                   {{"respond", "call"}, {"default", true}}}));
  const auto session = handshake(h);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  const auto bytes = call.wait_end();
  const std::string a = R"({"id":"a","jsonrpc":"2.0","method":"ping"})";
  const std::string c = R"({"id":"c","jsonrpc":"2.0","method":"ping"})";
  const std::string expected_start =
      ": hello\r\n\r\nevent: message\r\nid: e1\r\nretry: 500\r\ndata: " + a + "\r\n\r\n" +
      "data: {\ndata:   \"id\": \"b\",\ndata:   \"jsonrpc\": \"2.0\",\ndata:   \"method\": "
      "\"ping\"\ndata: }\n\n" +
      "event: message\ndata: " + c + "\n\n";
  EXPECT_EQ(bytes.substr(0, expected_start.size()), expected_start);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  std::size_t chopped_writes = 0;
  for (const auto& r : records_of(h.records(), "frame"))
    if (r.value("dir", "") == "s2c" && r["json"].value("id", Json()) == "c")
      chopped_writes = r.value("writes", std::size_t{1});
  const auto event_size = ("event: message\ndata: " + c + "\n\n").size();
  EXPECT_EQ(chopped_writes, (event_size + 6) / 7);
}

TEST(HttpServer, PostResponsesCanBeForcedToSse) {
  Harness h(Json::array({{{"handshake", Json::object()}}}), "streamable-http",
            {{"post_responses", "sse"}});
  StreamReader init(h.port(), "POST", "/mcp", headers(), initialize_request().dump());
  const auto bytes = init.wait_end();
  EXPECT_EQ(init.header("Content-Type"), "text/event-stream");
  ASSERT_EQ(data_messages(bytes).size(), 1u) << bytes;
  EXPECT_EQ(data_messages(bytes)[0]["result"]["protocolVersion"], "2025-11-25");
}

TEST(HttpServer, LegacySseEndpointEventPostAndMessageEvents) {
  Harness h(Json::array({{{"handshake", Json::object()}},
                         {{"send", ping_frame("L1")}, {"label", "ping"}},
                         {{"expect_response", "ping"}, {"check", check_def("pong")}}}),
            "sse");
  StreamReader sse(h.port(), "GET", "/sse", {{"Accept", "text/event-stream"}});
  const auto opening = sse.wait_for("\n\n");
  const std::string prefix = "event: endpoint\ndata: /message?sessionId=";
  ASSERT_EQ(opening.substr(0, prefix.size()), prefix) << opening;
  const auto data_at = opening.find("data: ") + 6;
  const auto path = opening.substr(data_at, opening.find('\n', data_at) - data_at);
  Client c(h.port());
  auto init = c.post(initialize_request("2024-11-05"), {}, path);
  ASSERT_TRUE(init);
  EXPECT_EQ(init->status, 202);
  sse.wait_for("\"protocolVersion\"");
  auto ack = c.post(kInitialized, {}, path);
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->status, 202);
  const auto with_ping = sse.wait_for("\"L1\"");
  EXPECT_NE(with_ping.find("event: message\ndata: {\"id\":1,"), std::string::npos) << with_ping;
  EXPECT_NE(with_ping.find("event: message\ndata: " + ping_frame("L1").dump()), std::string::npos);
  auto answer = c.post(pong("L1"), {}, path);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 202);
  auto unknown = c.post(pong("L1"), {}, "/message?sessionId=nope");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  h.channel().stop();  // ends the stream the way a shutdown does
  h.finish();
  EXPECT_EQ(find_check(h.records(), "pong")["outcome"], "met");
}

TEST(HttpServer, AFloodOfConcurrentRequestsGetsStatusesAndNoHang) {
  Harness h(Json::array({{{"handshake", Json::object()}}}));
  const auto session = handshake(h);
  constexpr int kRequests = 200;
  std::vector<std::thread> threads;
  std::vector<int> statuses(kRequests, -1);
  for (int i = 0; i < kRequests; ++i) {
    threads.emplace_back([&, i] {
      httplib::Client cli("127.0.0.1", h.port());
      cli.set_read_timeout(10, 0);
      cli.set_connection_timeout(10, 0);
      // Alternate answered pings with messages the server must reject, fast.
      const Json body = i % 2 ? Json{{"jsonrpc", "2.0"}, {"id", 1000 + i}, {"method", "ping"}}
                              : Json("not a message");
      auto res = cli.Post("/mcp", headers(session, "2025-11-25"), body.dump(), "application/json");
      statuses[static_cast<std::size_t>(i)] = res ? res->status : -static_cast<int>(res.error());
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kRequests; ++i) {
    const auto s = statuses[static_cast<std::size_t>(i)];
    if (i % 2) {
      EXPECT_TRUE(s == 200 || s == 503) << i << ": " << s;
    } else {
      EXPECT_EQ(s, 400) << i;
    }
  }
  // Still serving afterwards.
  Client c(h.port());
  auto after = c.post(Json{{"jsonrpc", "2.0"}, {"id", "last"}, {"method", "ping"}},
                      headers(session, "2025-11-25"));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_EQ(Json::parse(after->body)["result"], Json::object());
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
}

TEST(HttpServer, ManyStreamsOpenedFastAreCappedWith503) {
  // Forced SSE: every admitted POST gets its headers at once and stays open while the script
  // waits for a method that never comes.
  Harness h(Json::array({{{"handshake", Json::object()}},
                         {{"expect", {{"method", "never"}}},
                          {"within", "observe_ms"},
                          {"check", check_def("never", "INFO")}}}),
            "streamable-http", {{"post_responses", "sse"}},
            {{"observe_ms", 8000}, {"case_deadline_ms", 15000}});
  StreamReader init(h.port(), "POST", "/mcp", headers(), initialize_request().dump());
  init.wait_end();
  const auto session = init.header("Mcp-Session-Id");
  Client c(h.port());
  ASSERT_EQ(c.post(kInitialized, headers(session, "2025-11-25"))->status, 202);
  std::vector<std::unique_ptr<StreamReader>> open;
  for (int i = 0; i < 60; ++i) {
    open.push_back(std::make_unique<StreamReader>(
        h.port(), "POST", "/mcp", headers(session, "2025-11-25"), call_request(100 + i).dump()));
  }
  int admitted = 0, refused = 0;
  for (auto& r : open) {
    const auto status = r->status();
    admitted += status == 200;
    refused += status == 503;
  }
  EXPECT_EQ(admitted, 48);
  EXPECT_EQ(refused, 12);
  auto ping = c.post(Json{{"jsonrpc", "2.0"}, {"id", "x"}, {"method", "ping"}},
                     headers(session, "2025-11-25"));
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 503) << "the cap holds while the held requests wait";
  h.channel().stop();
  h.finish();
}

}  // namespace
}  // namespace mcpping
