#include <gtest/gtest.h>

#include "engine/interpreter.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

using test::FakeChannel;
using test::FakeClient;
using test::find_check;
using test::make_resolved;
using test::ping_script;
using test::run;

TEST(ExpectSteps, ExpectNoneSeesAForbiddenMessage) {
  FakeChannel ch;
  FakeClient client(ch);
  auto script = ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"p","method":"ping"})"),
                            Json{{"expect_none", {{"method", "notifications/cancelled"}}},
                                 {"check", test::check_def("no-cancel", "SHOULD")}});
  ch.on_frame = [&](const Json& f) {
    if (f.value("method", "") == "ping") {
      client.write(Json::parse(
          R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})"));
    } else {
      client.on_frame(f);
    }
  };
  const auto r = run(make_resolved(script), ch, client);
  const auto check = find_check(r.records, "no-cancel");
  EXPECT_EQ(check["outcome"], Json("broken"));  // a SHOULD
  EXPECT_NE(check["actual"].get<std::string>().find("notifications/cancelled"), std::string::npos);
}

// Regression (client-ping/unique-ids:fresh-id compared the second ping's id with initialize's
// and the first ping's only; "The request ID MUST NOT have been previously used by the
// requestor within the same session" covers every earlier request): `fresh_id` compares with
// every request the client sent before, whatever its method.
TEST(ExpectSteps, RegressionFreshIdComparedWithTwoRequestsOnly) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.on_frame = [&](const Json& f) {
    client.on_frame(f);
    if (f.value("id", Json()) == Json(0) && f.contains("result")) {  // after its tools/call id 1
      client.write(Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"));
      client.write(Json::parse(R"({"jsonrpc":"2.0","id":"1","method":"ping"})"));
    }
  };
  const auto r = run(make_resolved(Json::array({Json{{"handshake", Json::object()}},
                                                Json{{"expect", {{"method", "tools/call"}}},
                                                     {"as", "call"},
                                                     {"check", test::check_def("call")}},
                                                Json{{"expect", {{"method", "ping"}}},
                                                     {"as", "reused"},
                                                     {"fresh_id", true},
                                                     {"check", test::check_def("reused")}},
                                                Json{{"expect", {{"method", "ping"}}},
                                                     {"as", "fresh"},
                                                     {"fresh_id", true},
                                                     {"check", test::check_def("fresh")}},
                                                Json{{"respond", "call"}, {"default", true}}})),
                     ch, client);
  const auto reused = find_check(r.records, "reused");
  EXPECT_EQ(reused["outcome"], Json("broken"));
  EXPECT_NE(reused["actual"].get<std::string>().find("id 1 was already used by the client's "
                                                     "tools/call"),
            std::string::npos)
      << reused;
  EXPECT_EQ(find_check(r.records, "fresh")["outcome"], Json("met"));  // "1" is not 1
}

// `form` records the shape of the message taken apart (the client's own ping: "jsonrpc" "2.0",
// params absent or an object); the message is kept either way.
TEST(ExpectSteps, FormCheckRecordsTheShapeOfTheMessageTaken) {
  for (const char* name : {"echo", "other"}) {
    FakeChannel ch;
    FakeClient client(ch);
    const auto r = run(make_resolved(Json::array(
                           {Json{{"handshake", Json::object()}},
                            Json{{"expect", {{"method", "tools/call"}}},
                                 {"as", "call"},
                                 {"check", test::check_def("call")},
                                 {"form", {{"jsonrpc", "2.0"}, {"params", {{"name", name}}}}},
                                 {"form_check", test::check_def("form")}},
                            Json{{"respond", "call"}, {"default", true}}})),
                       ch, client);
    EXPECT_EQ(find_check(r.records, "call")["outcome"], Json("met"));
    EXPECT_EQ(find_check(r.records, "form")["outcome"],
              Json(std::string(name) == "echo" ? "met" : "broken"));
    EXPECT_EQ(client.results.size(), 1u);
  }
}

TEST(ExpectSteps, ObserveClientPingsRecordsCountAndIntervals) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto script = Json::array({Json{{"handshake", Json::object()}},
                                   Json{{"observe_client_pings", Json::object()},
                                        {"check", test::check_def("keepalive", "INFO")}},
                                   Json{{"serve_defaults", Json::object()}}});
  ch.on_frame = [&](const Json& f) {
    if (f.contains("result") && f["id"] == Json(0)) {
      client.write(Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
      client.write(Json::parse(R"({"jsonrpc":"2.0","id":"k1","method":"ping"})"), 10);
      client.write(Json::parse(R"({"jsonrpc":"2.0","id":"k2","method":"ping"})"), 30);
    } else if (f["id"] == Json("k2")) {
      ch.client_close();
    }
  };
  const auto r = run(make_resolved(script, {{"observe_ms", 200}}), ch, client);
  const auto check = find_check(r.records, "keepalive");
  EXPECT_EQ(check["outcome"], Json("met"));
  EXPECT_EQ(check["pings_at_ms"].size(), 2u);
  EXPECT_EQ(check["intervals_ms"].size(), 1u);
  EXPECT_EQ(ch.sent.back(), Json::parse(R"({"jsonrpc":"2.0","id":"k2","result":{}})"));
}

// A call, then a notifications/cancelled that never comes (expected at `level`), then the
// script's own answer to the call. Returns the call's result as the client got it.
Json call_result_after_missing_cancellation(const std::string& level) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto script = make_resolved(
      Json::array({Json{{"handshake", Json::object()}},
                   Json{{"expect", {{"method", "tools/call"}}},
                        {"as", "call"},
                        {"check", test::check_def("call")}},
                   Json{{"expect", {{"method", "notifications/cancelled"}}},
                        {"within", "quiet_ms"},
                        {"check", test::check_def("cancelled", level)}},
                   Json{{"respond", "call"}, {"result", {{"content", Json::array()}}}}}));
  const auto r = run(script, ch, client);
  EXPECT_EQ(find_check(r.records, "cancelled")["outcome"], Json("broken"));
  EXPECT_EQ(client.results.size(), 1u);
  return client.results.empty() ? Json() : client.results[0]["result"];
}

const Json kScriptsAnswer = Json::parse(R"({"content":[]})");

TEST(ExpectSteps, UnmetInfoExpectDoesNotStopTheScript) {
  EXPECT_EQ(call_result_after_missing_cancellation("INFO"), kScriptsAnswer);
}

// A missing SHOULD message is recorded and the case goes on to its subject.
TEST(ExpectSteps, MissingShouldCancellationNoLongerStopsTheScript) {
  EXPECT_EQ(call_result_after_missing_cancellation("SHOULD"), kScriptsAnswer);
}

// A missing MUST message stops the script: the call gets the default answer instead.
TEST(ExpectSteps, UnmetMustExpectStopsTheScript) {
  EXPECT_NE(call_result_after_missing_cancellation("MUST"), kScriptsAnswer);
}

}  // namespace
}  // namespace mcpping
