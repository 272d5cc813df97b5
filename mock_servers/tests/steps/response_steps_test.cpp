#include <gtest/gtest.h>

#include "engine/interpreter.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

using test::FakeChannel;
using test::FakeClient;
using test::find_check;
using test::fixture_script;
using test::make_resolved;
using test::ping_script;
using test::run;
using test::sent_call_result;

TEST(ResponseSteps, ErrorPongFailsButTheCallIsStillAnswered) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::Error;
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("broken"));
  EXPECT_NE(pong["actual"].get<std::string>().find(R"(error -32601 "Method not found")"),
            std::string::npos);
  EXPECT_TRUE(sent_call_result(ch));
  EXPECT_EQ(r.reason, "eof");
}

TEST(ResponseSteps, IdTypeChangedFails) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::StringId;
  const auto r =
      run(make_resolved(ping_script(Json::parse(R"({"jsonrpc":"2.0","id":5,"method":"ping"})"))),
          ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("broken"));
  EXPECT_NE(pong["actual"].get<std::string>().find(
                R"(id type changed: sent 5 (integer), got "5" (string))"),
            std::string::npos);
}

TEST(ResponseSteps, DuplicatePongFails) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::Twice;
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("broken"));
  EXPECT_NE(pong["actual"].get<std::string>().find("2 responses to the same request"),
            std::string::npos);
}

TEST(ResponseSteps, NonEmptyResultIsNonStrict) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::NonEmpty;
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("degraded"));
}

TEST(ResponseSteps, MetaOnlyResultPasses) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::None;
  ch.on_frame = [&](const Json& f) {
    if (f.value("method", "") == "ping") {
      client.write(Json{{"jsonrpc", "2.0"}, {"id", f["id"]}, {"result", {{"_meta", {{"k", 1}}}}}});
    } else {
      client.on_frame(f);
    }
  };
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("met"));
}

TEST(ResponseSteps, MissingPongFailsWithinTheCap) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::None;
  const auto r = run(fixture_script("ping/while-awaiting", {{"pong_cap_ms", 60}}), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("broken"));
  EXPECT_EQ(pong["actual"], Json("nothing within 60.0 ms"));
  EXPECT_FALSE(pong.contains("latency_ms"));
  EXPECT_TRUE(sent_call_result(ch));  // a failed pong does not stop the script
}

TEST(ResponseSteps, RoundedBigIdIsNonStrict) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::Rounded;
  const auto r = run(make_resolved(ping_script(Json::parse(
                         R"({"jsonrpc":"2.0","id":9007199254740993,"method":"ping"})"))),
                     ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("degraded")) << pong.dump();
  EXPECT_NE(pong["actual"].get<std::string>().find("rounded"), std::string::npos);
}

TEST(ResponseSteps, IdlePongAtTheNextRequestIsNonStrict) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::Late;
  client.late_ms = 150;
  client.next_request_first = true;
  // The client must stay after its call result to send tools/list.
  client.close_on_result = false;
  client.close_after = 5;
  const auto r =
      run(fixture_script("ping/idle", {{"pong_cap_ms", 100}, {"late_pong_ms", 1000}}), ch, client);
  const auto pong = find_check(r.records, "pong-while-idle");
  EXPECT_EQ(pong["outcome"], Json("degraded")) << pong.dump();
  EXPECT_NE(pong["actual"].get<std::string>().find("answered only at the client's next request"),
            std::string::npos);
}

TEST(ResponseSteps, IdlePongLateWithoutANextRequestFails) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::Late;
  client.late_ms = 150;
  client.close_on_result = false;
  client.close_after = 4;
  const auto r =
      run(fixture_script("ping/idle", {{"pong_cap_ms", 100}, {"late_pong_ms", 1000}}), ch, client);
  const auto pong = find_check(r.records, "pong-while-idle");
  EXPECT_EQ(pong["outcome"], Json("broken")) << pong.dump();
  EXPECT_NE(pong["actual"].get<std::string>().find("too late (cap 100.0 ms)"), std::string::npos);
}

TEST(ResponseSteps, BurstIsAnsweredOnceEachWithLatencySummary) {
  FakeChannel ch;
  FakeClient client(ch);
  auto script = ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"b-${i}","method":"ping"})"));
  script[2]["repeat"] = 50;
  const auto r = run(make_resolved(script), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("met"));
  EXPECT_EQ(pong["latency_ms"].size(), 50u);
  EXPECT_TRUE(pong["latency"].contains("p95"));
  EXPECT_NE(
      pong["actual"].get<std::string>().find("50/50 answered, each exactly once; latency p50"),
      std::string::npos);
}

TEST(ResponseSteps, BurstWithALostPongFailsNamingIt) {
  FakeChannel ch;
  FakeClient client(ch);
  client.skip_id = "b-7";
  auto script = ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"b-${i}","method":"ping"})"));
  script[2]["repeat"] = 20;
  const auto r = run(make_resolved(script, {{"pong_cap_ms", 80}}), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("broken"));
  EXPECT_NE(pong["actual"].get<std::string>().find(R"(19/20 answered)"), std::string::npos);
  EXPECT_NE(pong["actual"].get<std::string>().find(R"(id "b-7": nothing within 80.0 ms)"),
            std::string::npos);
}

Json no_response_step(const std::string& forbid) {
  return Json{{"expect_no_response", "ping"},
              {"forbid", forbid},
              {"check", test::check_def("no-success")},
              {"info_check", test::check_def("error-code", "INFO")}};
}

TEST(ResponseSteps, MalformedIdAnsweredWithAnErrorPassesAndRecordsTheCode) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::None;
  ch.on_frame = [&](const Json& f) {
    if (f.value("method", "") == "ping") {
      client.write(Json::parse(
          R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}})"));
    } else {
      client.on_frame(f);
    }
  };
  const auto r =
      run(make_resolved(ping_script(Json::parse(R"({"jsonrpc":"2.0","id":null,"method":"ping"})"),
                                    no_response_step("success"))),
          ch, client);
  EXPECT_EQ(find_check(r.records, "no-success")["outcome"], Json("met"));
  const auto info = find_check(r.records, "error-code");
  EXPECT_EQ(info["outcome"], Json("broken"));
  EXPECT_NE(
      info["actual"].get<std::string>().find(R"(error -32600 "Invalid Request" with id null)"),
      std::string::npos);
  EXPECT_TRUE(sent_call_result(ch));
}

TEST(ResponseSteps, MalformedIdAnsweredWithSuccessFails) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto r = run(
      make_resolved(ping_script(Json::parse(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})"),
                                no_response_step("success"))),
      ch, client);
  EXPECT_EQ(find_check(r.records, "no-success")["outcome"], Json("broken"));
  EXPECT_EQ(find_check(r.records, "error-code")["actual"],
            Json("no error response within 50.0 ms"));
}

TEST(ResponseSteps, NotificationPingMustGetNoReplyAtAll) {
  const Json ping = Json::parse(R"({"jsonrpc":"2.0","method":"ping"})");
  {
    FakeChannel ch;
    FakeClient client(ch);  // does not answer pings without id
    const auto r = run(make_resolved(ping_script(ping, no_response_step("any"))), ch, client);
    EXPECT_EQ(find_check(r.records, "no-success")["outcome"], Json("met"));
  }
  {
    FakeChannel ch;
    FakeClient client(ch);
    ch.on_frame = [&](const Json& f) {
      if (f.value("method", "") == "ping") {
        client.write(Json::parse(
            R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no id"}})"));
      } else {
        client.on_frame(f);
      }
    };
    const auto r = run(make_resolved(ping_script(ping, no_response_step("any"))), ch, client);
    EXPECT_EQ(find_check(r.records, "no-success")["outcome"], Json("broken"));
  }
}

Json error_script() {
  return make_resolved(
      ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"u-1","method":"x/unknown","params":{}})"),
                  Json{{"expect_error", "ping"},
                       {"code", -32601},
                       {"check", test::check_def("error-response")}}));
}

TEST(ResponseSteps, ExpectErrorJudgesTheCode) {
  const std::pair<Json, const char*> cases[] = {
      {Json::parse(R"({"code":-32601,"message":"Method not found"})"), "met"},
      {Json::parse(R"({"code":-32603,"message":"Internal error"})"), "degraded"},
      {nullptr, "broken"},  // a success result instead
  };
  for (const auto& answer : cases) {
    // Named references, not a structured binding: clang 14 cannot capture bindings in lambdas.
    const Json& error = answer.first;
    const char* outcome = answer.second;
    SCOPED_TRACE(outcome);
    FakeChannel ch;
    FakeClient client(ch);
    ch.on_frame = [&](const Json& f) {
      if (f.value("method", "") == "x/unknown") {
        client.write(error.is_null()
                         ? Json{{"jsonrpc", "2.0"}, {"id", f["id"]}, {"result", Json::object()}}
                         : Json{{"jsonrpc", "2.0"}, {"id", f["id"]}, {"error", error}});
      } else {
        client.on_frame(f);
      }
    };
    const auto r = run(error_script(), ch, client);
    const auto check = find_check(r.records, "error-response");
    EXPECT_EQ(check["outcome"], Json(outcome)) << check.dump();
    EXPECT_FALSE(check.contains("latency_ms"));
    EXPECT_TRUE(sent_call_result(ch));
  }
}

TEST(ResponseSteps, ExpectErrorSilenceFails) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto r = run(
      make_resolved(
          ping_script(
              Json::parse(R"({"jsonrpc":"2.0","id":"u-1","method":"x/unknown"})"),
              Json{{"expect_error", "ping"}, {"code", -32601}, {"check", test::check_def("e")}}),
          {{"pong_cap_ms", 50}}),
      ch, client);
  EXPECT_EQ(find_check(r.records, "e")["actual"], Json("nothing within 50.0 ms"));
  EXPECT_EQ(find_check(r.records, "e")["outcome"], Json("broken"));
}

TEST(ResponseSteps, UnmetMayCheckIsInformational) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::None;
  const auto r = run(
      make_resolved(
          ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"m","method":"ping"})"),
                      Json{{"expect_response", "ping"}, {"check", test::check_def("pong", "MAY")}}),
          {{"pong_cap_ms", 50}}),
      ch, client);
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("broken"));
  EXPECT_EQ(find_check(r.records, "pong")["level"], Json("MAY"));
}

}  // namespace
}  // namespace mcpping
