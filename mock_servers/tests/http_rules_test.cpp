// The HTTP mock server's request rules (http_rules, http_sessions), end to end: what it
// refuses with a status, what it records as an implicit check and lets through, and how the
// negotiated version decides the protocol-version header and batches.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <set>

#include "http_harness.hpp"

namespace mcpping {
namespace {

using namespace test::http;
using test::check_def;
using test::find_check;
using test::records_of;

// A lenient server: what it cannot process or attribute is refused with its status; a
// missing or wrong header is recorded as the rule's check and the request goes on, so a pong
// that lacks a header is still judged as a pong.
TEST(HttpRules, RequestValidationStatusesAndImplicitChecks) {
  Harness h(Json::array({{{"handshake", Json::object()}}}));
  const auto session = handshake(h);
  Client c(h.port());
  auto no_session = c.post(call_request(5), headers({}, "2025-11-25"));
  ASSERT_TRUE(no_session);
  EXPECT_EQ(no_session->status, 200);  // attributed to the only session
  auto unknown = c.post(call_request(6), headers("no-such-session", "2025-11-25"));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  auto wrong_version = c.post(call_request(7), headers(session, "2025-03-26"));
  ASSERT_TRUE(wrong_version);
  EXPECT_EQ(wrong_version->status, 200);
  auto no_version = c.post(call_request(8), headers(session));
  ASSERT_TRUE(no_version);
  EXPECT_EQ(no_version->status, 200);
  auto garbage =
      c.cli.Post("/mcp", headers(session, "2025-11-25"), "{not json", "application/json");
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 400);
  const auto error = Json::parse(garbage->body);
  EXPECT_EQ(error["error"]["code"], -32700);
  EXPECT_FALSE(error.contains("id"));
  httplib::Headers json_only{{"Accept", "application/json"},
                             {"Mcp-Session-Id", session},
                             {"MCP-Protocol-Version", "2025-11-25"}};
  auto json_accept = c.post(call_request(9), json_only);
  ASSERT_TRUE(json_accept);
  EXPECT_EQ(json_accept->status, 200);
  auto text =
      c.cli.Post("/mcp", headers(session, "2025-11-25"), call_request(10).dump(), "text/plain");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->status, 200);
  auto big = c.cli.Post("/mcp", headers(session, "2025-11-25"), std::string((4u << 20) + 1, ' '),
                        "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");

  const auto records = h.records();
  EXPECT_EQ(find_check(records, "http:session-id")["outcome"], "broken");
  EXPECT_EQ(find_check(records, "http:session-id")["implicit"], true);
  // A version the server supports but did not negotiate (2025-03-26) is degraded; the header
  // missing later is worse, and recorded again as broken.
  std::vector<std::string> version_outcomes;
  for (const auto& r : records_of(records, "check"))
    if (r["check"] == "http:protocol-version") version_outcomes.push_back(r["outcome"]);
  EXPECT_EQ(version_outcomes, (std::vector<std::string>{"degraded", "broken"}));
  EXPECT_EQ(find_check(records, "transport:valid-message")["outcome"], "broken");
  EXPECT_EQ(find_check(records, "http:accept")["outcome"], "broken");
  EXPECT_EQ(find_check(records, "http:content-type")["outcome"], "broken");
  EXPECT_EQ(find_check(records, "http:content-type")["level"], "SHOULD");
  EXPECT_EQ(find_check(records, "http:content-type")["spec"],
            Json::array({"rfc9110.content-type"}));
  EXPECT_EQ(find_check(records, "http:body-too-large")["outcome"], "broken");
  EXPECT_EQ(find_check(records, "http:body-too-large")["level"], "INFO");
  std::set<Json> reached;
  for (const auto& r : records_of(records, "frame"))
    if (r.value("dir", "") == "c2s" && r["json"].value("method", "") == "tools/call")
      reached.insert(r["json"]["id"]);
  // Accepted despite a broken header rule: they reached the script. Refused: they did not.
  EXPECT_EQ(reached, (std::set<Json>{5, 7, 8, 9, 10}));
}

// Regression: a GET probe before initialize (no session exists yet) was recorded as an
// http:session-id MUST failure; the session rules start once a session was issued.
TEST(HttpRules, GetBeforeInitializeIsRefusedAndNotedNotFailed) {
  Harness h(Json::array({{{"handshake", Json::object()}}}));
  Client c(h.port());
  auto early = c.cli.Get("/mcp", httplib::Headers{{"Accept", "text/event-stream"}});
  ASSERT_TRUE(early);
  EXPECT_EQ(early->status, 400);
  const auto session = handshake(h);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_TRUE(find_check(records, "http:session-id").is_null());
  const auto noted = find_check(records, "http:before-initialize");
  EXPECT_EQ(noted["level"], "INFO");
  EXPECT_NE(noted["actual"].get<std::string>().find("GET /mcp before initialize"),
            std::string::npos)
      << noted;
  EXPECT_EQ(find_check(records, "handshake")["outcome"], "met");
}

// The pong script of the header cases: a ping on the call's stream, the pong judged.
Json pong_script() {
  return Json::array({{{"handshake", Json::object()}},
                      expect_call(),
                      {{"send", ping_frame("p1")}, {"label", "ping"}, {"on", "post:call"}},
                      {{"expect_response", "ping"}, {"check", check_def("pong")}},
                      {{"respond", "call"}, {"default", true}, {"on", "post:call"}}});
}

// Posts the pong to the ping on the call's stream with `h_pong` headers and `content_type`
// ("" sends none); returns the pong POST's status. `version` is what initialize offers.
int pong_round(Harness& h, const httplib::Headers& h_pong, const std::string& content_type,
               const std::string& version = "2025-11-25") {
  const auto session = handshake(h, version);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, version), call_request(2).dump());
  call.wait_for("\"p1\"");
  std::vector<std::string> lines = {"Mcp-Session-Id: " + session};
  for (const auto& [name, value] : h_pong) lines.push_back(name + ": " + value);
  if (!content_type.empty()) lines.push_back("Content-Type: " + content_type);
  const int status = raw_post(h.port(), lines, pong("p1").dump());
  call.wait_end();
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  return status;
}

httplib::Headers accept_and_version(const std::string& version = "2025-11-25") {
  return {{"Accept", kAcceptBoth.get<std::string>()}, {"MCP-Protocol-Version", version}};
}

// Regression (a pong POST without Content-Type was rejected with 415, failing the pong):
// RFC 9110 makes the label a sender's SHOULD and lets a recipient examine the data, so the
// body is read as JSON, the pong judged as a pong, and http:content-type (SHOULD) recorded.
TEST(HttpRules, APongPostWithoutContentTypeIsAcceptedAndJudgedAsAPong) {
  Harness h(pong_script());
  EXPECT_EQ(pong_round(h, accept_and_version(), ""), 202);
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pong")["outcome"], "met") << find_check(records, "pong");
  const auto label = find_check(records, "http:content-type");
  EXPECT_EQ(label["outcome"], "broken");
  EXPECT_EQ(label["level"], "SHOULD");
  EXPECT_EQ(label["spec"], Json::array({"rfc9110.content-type"}));
  EXPECT_EQ(label["actual"], "Content-Type: (none)");
}

TEST(HttpRules, APongPostedAsTextPlainJsonIsAcceptedTheSameWay) {
  Harness h(pong_script());
  EXPECT_EQ(pong_round(h, accept_and_version(), "text/plain"), 202);
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pong")["outcome"], "met");
  EXPECT_EQ(find_check(records, "http:content-type")["actual"], "Content-Type: text/plain");
  EXPECT_EQ(find_check(records, "http:content-type")["level"], "SHOULD");
}

// Regression (protocol-version header): any value but the offered version was one MUST
// failure. Now: missing is broken (accepted), a well-formed version that is not the negotiated
// one is degraded (accepted), a value that is no version is refused with 400 as servers must.
TEST(HttpRules, AProtocolVersionTheServerSupportsButDidNotNegotiateIsDegraded) {
  Harness h(pong_script());
  EXPECT_EQ(pong_round(h, accept_and_version("2025-06-18"), "application/json"), 202);
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pong")["outcome"], "met");
  const auto version = find_check(records, "http:protocol-version");
  EXPECT_EQ(version["outcome"], "degraded");
  EXPECT_EQ(version["level"], "MUST");
  EXPECT_EQ(version["spec"], Json::array({"http.protocol-version-negotiated"}));
  EXPECT_EQ(test::count_checks(records, "http:protocol-version"), 1u);
}

// Regression (http:protocol-version failed, and refused with 400, a well-formed version the
// server does not support; the client's rule on the value is "The protocol version sent by
// the client SHOULD be the one negotiated during initialization"): degraded and accepted, so
// the pong is still judged as a pong.
TEST(HttpRules, RegressionAWellFormedUnsupportedVersionWasAMustRefusedWith400) {
  Harness h(pong_script());
  EXPECT_EQ(pong_round(h, accept_and_version("1999-01-01"), "application/json"), 202);
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pong")["outcome"], "met");
  const auto version = find_check(records, "http:protocol-version");
  EXPECT_EQ(version["outcome"], "degraded");
  EXPECT_EQ(version["spec"], Json::array({"http.protocol-version-negotiated"}));
  EXPECT_NE(version["actual"].get<std::string>().find("does not support"), std::string::npos);
}

TEST(HttpRules, AProtocolVersionHeaderThatIsNoVersionIsRefusedWith400) {
  Harness h(pong_script());
  EXPECT_EQ(pong_round(h, accept_and_version("latest"), "application/json"), 400);
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pong")["outcome"], "broken") << "the refused pong never came";
  const auto version = find_check(records, "http:protocol-version");
  EXPECT_EQ(version["outcome"], "broken");
  EXPECT_EQ(version["spec"], Json::array({"http.protocol-version-header"}));
  EXPECT_NE(version["actual"].get<std::string>().find("not a protocol version"), std::string::npos);
  bool refused = false;
  for (const auto& r : records_of(records, "raw"))
    if (r.value("note", "") == "rejected with 400") refused = true;
  EXPECT_TRUE(refused);
}

TEST(HttpRules, TheUnsupportedVersionAnswerIsTheSdkServersBadRequest) {
  Harness h(Json::array({{{"handshake", Json::object()}}}));
  const auto session = handshake(h);
  Client c(h.port());
  auto res = c.post(call_request(5), headers(session, "v2099"));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  const auto body = Json::parse(res->body);
  EXPECT_EQ(body["error"]["code"], -32000);
  EXPECT_EQ(body["error"]["message"].get<std::string>().rfind(
                "Bad Request: Unsupported protocol version: v2099 (supported versions: ", 0),
            0u)
      << body;
  EXPECT_FALSE(body.contains("id"));
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
}

// Regression (revision gating by the negotiated version): the header exists from 2025-06-18
// on; a client that negotiated 2025-03-26 under the default --revision 2025-11-25 is not
// failed for lacking it.
TEST(HttpRules, NoProtocolVersionHeaderIsRequiredWhen20250326WasNegotiated) {
  Harness h(pong_script());
  const httplib::Headers accept_only{{"Accept", kAcceptBoth.get<std::string>()}};
  EXPECT_EQ(pong_round(h, accept_only, "application/json", "2025-03-26"), 202);
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pong")["outcome"], "met");
  EXPECT_TRUE(find_check(records, "http:protocol-version").is_null())
      << find_check(records, "http:protocol-version");
}

// A session that negotiated 2025-03-26 sends and takes batches; three pongs in one batch are
// three pongs (Regression: batches were refused with 400 whatever was negotiated).
TEST(HttpRules, ABatchOfPongsIsThreePongsWhen20250326WasNegotiated) {
  Harness h(
      Json::array({{{"handshake", Json::object()}},
                   expect_call(),
                   {{"send", Json::array({ping_frame("b1"), ping_frame("b2"), ping_frame("b3")})},
                    {"label", "pings"},
                    {"write", "coalesced"},
                    {"on", "post:call"}},
                   {{"expect_response", "pings"}, {"check", check_def("pongs")}},
                   {{"respond", "call"}, {"default", true}, {"on", "post:call"}}}));
  const auto session = handshake(h, "2025-03-26");
  StreamReader call(h.port(), "POST", "/mcp", headers(session), call_request(2).dump());
  call.wait_for("\"b3\"");
  Client c(h.port());
  auto answer = c.post(Json::array({pong("b1"), pong("b2"), pong("b3")}), headers(session));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 202);
  EXPECT_TRUE(answer->body.empty());
  EXPECT_EQ(data_messages(call.wait_end()).size(), 4u);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pongs")["outcome"], "met") << find_check(records, "pongs");
  EXPECT_TRUE(find_check(records, "transport:valid-message").is_null());
  std::vector<Json> batched;
  for (const auto& r : records_of(records, "frame"))
    if (r.value("dir", "") == "c2s" && r.value("batch", 0) == 3) batched.push_back(r["json"]["id"]);
  EXPECT_EQ(batched, (std::vector<Json>{"b1", "b2", "b3"})) << "each element, in order";
}

// Regression (ping/in-batch on legacy HTTP+SSE at 2025-03-26: every JSON array POST was
// refused with 400, so a pong sent in a batch failed, though 2025-03-26 says implementations
// "MUST support receiving JSON-RPC batches"): the legacy session's negotiated version decides,
// as on Streamable HTTP.
TEST(HttpRules, RegressionLegacySseRefusedABatchIn20250326Session) {
  for (const std::string version : {"2025-03-26", "2024-11-05"}) {
    Harness h(Json::array({{{"handshake", Json::object()}},
                           {{"send", Json::array({ping_frame("lb1"), ping_frame("lb2")})},
                            {"label", "pings"},
                            {"write", "coalesced"}},
                           {{"expect_response", "pings"}, {"check", check_def("pongs")}},
                           // Written once the pongs are judged: the test waits for it.
                           {{"send",
                             {{"jsonrpc", "2.0"},
                              {"method", "notifications/message"},
                              {"params", {{"level", "info"}, {"data", "judged"}}}}}}}),
              "sse");
    StreamReader sse(h.port(), "GET", "/sse", {{"Accept", "text/event-stream"}});
    const auto opening = sse.wait_for("\n\n");
    const auto data_at = opening.find("data: ") + 6;
    const auto path = opening.substr(data_at, opening.find('\n', data_at) - data_at);
    Client c(h.port());
    ASSERT_TRUE(c.post(initialize_request(version), {}, path));
    sse.wait_for("\"protocolVersion\"");
    ASSERT_TRUE(c.post(kInitialized, {}, path));
    sse.wait_for("\"lb2\"");
    auto answer = c.post(Json::array({pong("lb1"), pong("lb2")}), {}, path);
    ASSERT_TRUE(answer);
    if (version == "2025-03-26") sse.wait_for("\"judged\"");
    h.channel().stop();
    h.finish();
    const auto records = h.records();
    if (version == "2025-03-26") {
      EXPECT_EQ(answer->status, 202);
      EXPECT_EQ(find_check(records, "pongs")["outcome"], "met") << find_check(records, "pongs");
      EXPECT_TRUE(find_check(records, "transport:valid-message").is_null());
    } else {
      EXPECT_EQ(answer->status, 400);
      EXPECT_EQ(find_check(records, "transport:valid-message")["outcome"], "broken");
    }
  }
}

// Regression (a client that exits while it writes a POST, as the Kotlin SDK's driver did after
// a failed pong: the part that came was read as the whole body, "the body is not JSON", a MUST
// finding): a body shorter than its Content-Length is no message, and nothing is judged of it.
TEST(HttpRules, RegressionABodyCutShortWasJudgedAsAMessage) {
  Harness h(Json::array({{{"handshake", Json::object()}}}));
  const auto session = handshake(h);
  const std::string whole = pong("p1").dump();
  // No answer: httplib closes the connection once the handler that read the body returned.
  EXPECT_EQ(raw_post(h.port(), {"Mcp-Session-Id: " + session, "Content-Type: application/json"},
                     whole.substr(0, 10), whole.size()),
            0);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_TRUE(find_check(records, "transport:valid-message").is_null())
      << find_check(records, "transport:valid-message");
  const auto http = records_of(records, "http");
  EXPECT_TRUE(std::any_of(http.begin(), http.end(), [](const Json& r) {
    return r.value("note", "").find("the connection ended after 10 bytes") != std::string::npos;
  })) << Json(http).dump();
}

TEST(HttpRules, ABatchIsInvalidUnlessTheSessionNegotiated20250326) {
  Harness h(Json::array({{{"handshake", Json::object()}}}));
  const auto session = handshake(h, "2025-06-18");
  Client c(h.port());
  auto answer = c.post(Json::array({pong("x1"), pong("x2")}), headers(session, "2025-06-18"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 400);
  EXPECT_EQ(Json::parse(answer->body)["error"]["code"], -32600);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto invalid = find_check(h.records(), "transport:valid-message");
  EXPECT_EQ(invalid["outcome"], "broken");
  EXPECT_NE(invalid["actual"].get<std::string>().find(
                "batches exist only in revision 2025-03-26 (negotiated: 2025-06-18)"),
            std::string::npos)
      << invalid;
}

// 2025-03-26 batches hold requests and notifications, or responses: a mix is none of the
// forms, but each message can be processed (lenient); initialize is never batched (refused).
TEST(HttpRules, AMixedBatchIsProcessedAndRecordedABatchedInitializeRefused) {
  Harness h(Json::array({{{"handshake", Json::object()}},
                         {{"expect", {{"method", "notifications/progress"}}},
                          {"check", check_def("notification-processed")}}}));
  const auto session = handshake(h, "2025-03-26");
  Client c(h.port());
  const Json note = {{"jsonrpc", "2.0"}, {"method", "notifications/progress"}};
  auto mixed = c.post(Json::array({pong("stray"), note}), headers(session));
  ASSERT_TRUE(mixed);
  EXPECT_EQ(mixed->status, 202);
  auto with_init = c.post(Json::array({initialize_request("2025-03-26"), note}), headers(session));
  ASSERT_TRUE(with_init);
  EXPECT_EQ(with_init->status, 400);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "notification-processed")["outcome"], "met");
  const auto invalid = find_check(records, "transport:valid-message");
  EXPECT_EQ(invalid["spec"], Json::array({"http.post-body-batch"}));
  EXPECT_NE(invalid["actual"].get<std::string>().find("responses mixed with requests"),
            std::string::npos)
      << invalid;
}

// The server answers a batch holding requests on one SSE stream, one event per response, and
// ends it after the last ("The SSE stream SHOULD eventually include one JSON-RPC response per
// each JSON-RPC request sent in the POST body").
TEST(HttpRules, ABatchOfRequestsIsAnsweredOnOneStream) {
  Harness h(Json::array({{{"handshake", Json::object()}}}));
  const auto session = handshake(h, "2025-03-26");
  const Json list = {{"jsonrpc", "2.0"}, {"id", 6}, {"method", "tools/list"}};
  const Json note = {{"jsonrpc", "2.0"}, {"method", "notifications/progress"}};
  StreamReader batch(h.port(), "POST", "/mcp", headers(session),
                     Json::array({call_request(5), note, list}).dump());
  const auto bytes = batch.wait_end();
  EXPECT_EQ(batch.header("Content-Type"), "text/event-stream");
  const auto messages = data_messages(bytes);
  ASSERT_EQ(messages.size(), 2u) << bytes;
  std::set<Json> ids = {messages[0]["id"], messages[1]["id"]};
  EXPECT_EQ(ids, (std::set<Json>{5, 6}));
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
}

}  // namespace
}  // namespace mcpping
