#include <algorithm>
#include <functional>

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

// "The receiver MUST respond promptly with an empty response": members besides _meta break
// it (they were only NON_STRICT).
TEST(ResponseSteps, PongResultWithMembersBesidesMetaFails) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::NonEmpty;
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("broken"));
  EXPECT_NE(pong["actual"].get<std::string>().find("result is not empty"), std::string::npos);
}

// JSON-RPC 2.0: a response's jsonrpc member "MUST be exactly "2.0"" (pongs were never
// checked for it).
TEST(ResponseSteps, PongWithoutJsonrpc20Fails) {
  const std::pair<Json, const char*> cases[] = {
      {nullptr, "no jsonrpc member"},
      {Json("1.0"), R"(jsonrpc is "1.0", not "2.0")"},
  };
  for (const auto& variant : cases) {
    const Json& version = variant.first;
    const char* note = variant.second;
    SCOPED_TRACE(note);
    FakeChannel ch;
    FakeClient client(ch);
    client.pong = FakeClient::Pong::None;
    ch.on_frame = [&](const Json& f) {
      if (f.value("method", "") == "ping") {
        Json pong{{"id", f["id"]}, {"result", Json::object()}};
        if (!version.is_null()) pong["jsonrpc"] = version;
        client.write(pong);
      } else {
        client.on_frame(f);
      }
    };
    const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
    const auto pong = find_check(r.records, "pong");
    EXPECT_EQ(pong["outcome"], Json("broken"));
    EXPECT_NE(pong["actual"].get<std::string>().find(note), std::string::npos) << pong.dump();
  }
}

// A second pong that comes after the step went on is still seen: the verdict is made at the
// end of the run, not after a fixed grace on the script's path.
TEST(ResponseSteps, DuplicatePongAfterTheStepWentOnStillFails) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::None;
  client.close_on_result = false;
  ch.on_frame = [&](const Json& f) {
    if (f.value("method", "") == "ping") {
      const Json ok{{"jsonrpc", "2.0"}, {"id", f["id"]}, {"result", Json::object()}};
      client.write(ok);
    } else {
      client.on_frame(f);
      if (f.contains("result") && f["id"] == Json(1)) {
        // The call's answer came, so the pong step is over: now the duplicate, then close.
        client.write(Json{{"jsonrpc", "2.0"}, {"id", "srv-ping-1"}, {"result", Json::object()}});
        ch.client_close();
      }
    }
  };
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("broken")) << pong.dump();
  EXPECT_NE(pong["actual"].get<std::string>().find("2 responses to the same request"),
            std::string::npos);
}

// A pong POST the server refused (500, dropped connection) was never accepted: sending the
// pong again is a retry, not a second response.
TEST(ResponseSteps, PongRetriedAfterARefusedPostCountsOnce) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::None;
  ch.on_frame = [&](const Json& f) {
    if (f.value("method", "") == "ping") {
      const Json ok{{"jsonrpc", "2.0"}, {"id", f["id"]}, {"result", Json::object()}};
      ch.client_send_with_meta(ok, Json{{"fault", "500"}});
      client.write(ok);
    } else {
      client.on_frame(f);
    }
  };
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("met")) << pong.dump();
  EXPECT_NE(pong["actual"].get<std::string>().find("2 attempts, 1 refused by the server"),
            std::string::npos);
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
  EXPECT_EQ(pong["actual"].get<std::string>().rfind("nothing by the end of the run (", 0), 0u)
      << pong.dump();
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

// Each pong comes 40 ms after its ping: the burst's last pong 40 ms after the first ping
// (plus the microseconds between the three writes), so 3 pongs in ~40 ms.
TEST(ResponseSteps, BurstRecordsTimeToTheLastPongAndPongsPerSecond) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::Late;
  client.late_ms = 40;
  auto script = ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"b-${i}","method":"ping"})"));
  script[2]["repeat"] = 3;
  const auto r = run(make_resolved(script), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["outcome"], Json("met")) << pong.dump();
  ASSERT_TRUE(pong.contains("burst")) << pong.dump();
  const auto& burst = pong["burst"];
  EXPECT_EQ(burst["pings"], 3);
  EXPECT_EQ(burst["pongs"], 3);
  const double to_last = burst["time_to_last_pong_ms"].get<double>();
  EXPECT_GE(to_last, 40.0);
  EXPECT_LT(to_last, 90.0);
  double slowest = 0;
  for (const auto& ms : pong["latency_ms"]) slowest = std::max(slowest, ms.get<double>());
  EXPECT_GE(to_last, slowest);
  EXPECT_NEAR(burst["pongs_per_second"].get<double>(), 3000.0 / to_last, 0.001);
  EXPECT_NE(pong["actual"].get<std::string>().find("; the last pong "), std::string::npos)
      << pong["actual"];
}

TEST(ResponseSteps, SinglePongRecordsNoBurst) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["latency_ms"].size(), 1u);
  EXPECT_FALSE(pong.contains("burst")) << pong.dump();
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
  EXPECT_EQ(pong["burst"]["pings"], 20);
  EXPECT_EQ(pong["burst"]["pongs"], 19);
  EXPECT_NE(pong["actual"].get<std::string>().find(R"(id "b-7": nothing by the end of the run)"),
            std::string::npos);
}

// The fake client answers every server frame of `method` with `reply(frame)`, `delay_ms`
// later; other frames it handles as usual.
void answer_method(FakeChannel& ch, FakeClient& client, const std::string& method,
                   std::function<Json(const Json&)> reply, double delay_ms = 0) {
  ch.on_frame = [&client, method, reply = std::move(reply), delay_ms](const Json& f) {
    if (f.value("method", "") == method) {
      client.write(reply(f), delay_ms);
    } else {
      client.on_frame(f);
    }
  };
}

// An error response to `frame` with `code`.
Json error_to(const Json& frame, int code, const char* message) {
  return Json{
      {"jsonrpc", "2.0"}, {"id", frame["id"]}, {"error", {{"code", code}, {"message", message}}}};
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
  EXPECT_EQ(find_check(r.records, "error-code")["actual"].get<std::string>().rfind(
                "no error response in the ", 0),
            0u);
}

// Replies to a notification-ping, or success answers to a malformed id, were watched for
// quiet_ms only: one that came later passed. Now they are watched to the end of the run.
TEST(ResponseSteps, ReplyAfterTheQuietWindowStillFails) {
  const std::pair<Json, const char*> cases[] = {
      {Json::parse(R"({"jsonrpc":"2.0","method":"ping"})"), "any"},
      {Json::parse(R"({"jsonrpc":"2.0","id":null,"method":"ping"})"), "success"},
  };
  for (const auto& variant : cases) {
    const Json& ping = variant.first;
    const std::string forbid = variant.second;
    SCOPED_TRACE(forbid);
    FakeChannel ch;
    FakeClient client(ch);
    ch.on_frame = [&](const Json& f) {
      if (f.value("method", "") == "ping") {
        // 200 ms after the ping: long after the 50 ms window.
        client.write(Json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"result", Json::object()}}, 200);
      } else {
        client.on_frame(f);
      }
    };
    const auto r = run(make_resolved(ping_script(ping, no_response_step(forbid))), ch, client);
    const auto check = find_check(r.records, "no-success");
    EXPECT_EQ(check["outcome"], Json("broken")) << check.dump();
    EXPECT_NE(check["actual"].get<std::string>().find("ms window: the server had gone on"),
              std::string::npos)
        << check.dump();
  }
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

// Regression (ping/modern-session passed a client that answered the ping with
// {"id":null,"error":...}: only responses attributed to the ping counted): where no response
// at all is allowed ("The client MUST NOT write JSON-RPC responses", 2026-07-28), any
// response after the frame breaks the check, whatever its id.
TEST(ResponseSteps, RegressionAResponseWithAnotherIdWasIgnoredWhereNoneIsAllowed) {
  for (const char* reply :
       {R"({"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}})",
        R"({"jsonrpc":"2.0","id":"not-the-ping","result":{}})"}) {
    SCOPED_TRACE(reply);
    FakeChannel ch;
    FakeClient client(ch);
    answer_method(ch, client, "ping", [reply](const Json&) { return Json::parse(reply); });
    const auto ping = Json::parse(R"({"jsonrpc":"2.0","id":"m-1","method":"ping"})");
    const auto r = run(make_resolved(ping_script(ping, no_response_step("any"))), ch, client);
    EXPECT_EQ(find_check(r.records, "no-success")["outcome"], Json("broken"));
    EXPECT_EQ(find_check(r.records, "error-code")["outcome"], Json("broken"));
  }
}

// Regression (ping/malformed-id/fractional failed a success pong echoing 1.5, though the
// schema's RequestId is "string | number" and JSON-RPC asks the response for "the same as the
// value"; "Requests MUST include a string or integer ID" binds the server that sent it): an
// echo of the id meets the check, a success answer with another id still breaks it.
TEST(ResponseSteps, RegressionAPongEchoingAFractionalIdFailed) {
  // 1: also the id the server answered the client's tools/call with, which a client response
  // cannot be answering (it is no request of the server's).
  const std::pair<Json, const char*> cases[] = {
      {Json(1.5), "met"}, {Json("1.5"), "broken"}, {Json(1), "broken"}};
  for (const auto& [echoed, outcome] : cases) {
    SCOPED_TRACE(echoed.dump());
    FakeChannel ch;
    FakeClient client(ch);
    answer_method(ch, client, "ping", [echoed = echoed](const Json&) {
      return Json{{"jsonrpc", "2.0"}, {"id", echoed}, {"result", Json::object()}};
    });
    auto step = no_response_step("success-with-another-id");
    const auto ping = Json::parse(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})");
    const auto r = run(make_resolved(ping_script(ping, step)), ch, client);
    EXPECT_EQ(find_check(r.records, "no-success")["outcome"], Json(outcome));
  }
}

Json error_script() {
  return make_resolved(
      ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"u-1","method":"x/unknown","params":{}})"),
                  Json{{"expect_error", "ping"},
                       {"code", -32601},
                       {"check", test::check_def("error-response")}}));
}

TEST(ResponseSteps, ExpectErrorRecordsTheCode) {
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

// No sentence requires -32601 of a client that lacks a method: with a code_check the error
// response is the check, and the code is recorded on its own.
TEST(ResponseSteps, ExpectErrorWithACodeCheckRecordsTheCodeApart) {
  FakeChannel ch;
  FakeClient client(ch);
  answer_method(ch, client, "x/unknown",
                [](const Json& f) { return error_to(f, -32603, "Internal error"); });
  auto script = error_script();
  script["script"][3]["code_check"] = test::check_def("error-code", "INFO");
  const auto r = run(script, ch, client);
  EXPECT_EQ(find_check(r.records, "error-response")["outcome"], Json("met"));
  const auto code = find_check(r.records, "error-code");
  EXPECT_EQ(code["outcome"], Json("broken"));
  EXPECT_EQ(code["actual"], Json(R"(error -32603 "Internal error")"));
}

// Regression (server-request/unknown-method failed an error response that came after
// pong_cap_ms): nothing bounds the time of an error response to an unknown method; the bound
// is only how long the script waits, and the check is recorded at the end of the run.
TEST(ResponseSteps, RegressionALateErrorResponseToAnUnknownMethodFailed) {
  FakeChannel ch;
  FakeClient client(ch);
  answer_method(
      ch, client, "x/unknown",
      [](const Json& f) { return error_to(f, -32601, "Method not found"); }, 200);
  auto script = error_script();
  script["timeouts"]["pong_cap_ms"] = 50;
  const auto r = run(script, ch, client);
  const auto check = find_check(r.records, "error-response");
  EXPECT_EQ(check["outcome"], Json("met")) << check.dump();
  EXPECT_NE(check["actual"].get<std::string>().find("after the 50.0 ms the script waited"),
            std::string::npos)
      << check.dump();
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
  EXPECT_EQ(find_check(r.records, "e")["actual"].get<std::string>().rfind("nothing by the end", 0),
            0u);
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
