#include "engine/interpreter.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "engine/pattern.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

using test::count_checks;
using test::FakeChannel;
using test::find_check;
using test::make_resolved;
using test::records_of;

// A scripted MCP client: initialize, initialized, tools/call id 1; answers server pings
// as told; closes the connection once the call's result arrives (or after `close_after`
// messages, for failure injection).
struct FakeClient {
  enum class Pong { Correct, Error, None, StringId, Twice, NonEmpty, Rounded, Late };

  FakeChannel& ch;
  Pong pong = Pong::Correct;
  std::size_t close_after = std::numeric_limits<std::size_t>::max();
  double late_ms = 0;               // Pong::Late: pong arrives this late
  bool next_request_first = false;  // Pong::Late: a tools/list arrives just before the pong
  std::string skip_id;              // never answer the ping with this id
  bool close_on_result = true;
  std::size_t written = 0;
  std::vector<Json> results;

  explicit FakeClient(FakeChannel& channel) : ch(channel) {
    ch.on_frame = [this](const Json& f) { on_frame(f); };
  }

  void start() {
    if (close_after == 0) {
      ch.client_close();
      return;
    }
    write(Json::parse(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fake","version":"1"}}})"));
  }

  void write(const Json& message, double delay_ms = 0) {
    if (written >= close_after) return;
    ch.client_send(message, delay_ms);
    if (++written == close_after) ch.client_close();
  }

  void on_frame(const Json& f) {
    if (f.contains("method") && f["method"] == "ping" && f.contains("id")) {
      answer_ping(f);
      return;
    }
    if (!f.contains("id") || f.contains("method")) return;
    if (f["id"] == Json(0) && f.contains("result")) {
      write(Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
      write(Json::parse(
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"nonce-1"}}})"));
    } else if (f["id"] == Json(1) || f["id"] == Json(2)) {
      results.push_back(f);
      if (close_on_result) ch.client_close();
    }
  }

  void answer_ping(const Json& ping) {
    const auto& id = ping["id"];
    if (!skip_id.empty() && id == Json(skip_id)) return;
    const Json ok{{"jsonrpc", "2.0"}, {"id", id}, {"result", Json::object()}};
    switch (pong) {
      case Pong::Correct:
        write(ok);
        break;
      case Pong::Error:
        write(Json{{"jsonrpc", "2.0"},
                   {"id", id},
                   {"error", {{"code", -32601}, {"message", "Method not found"}}}});
        break;
      case Pong::None:
        break;
      case Pong::StringId:
        write(Json{{"jsonrpc", "2.0"}, {"id", value_text(id)}, {"result", Json::object()}});
        break;
      case Pong::Twice:
        write(ok);
        write(ok);
        break;
      case Pong::NonEmpty:
        write(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"pong", true}}}});
        break;
      case Pong::Rounded:
        write(Json{{"jsonrpc", "2.0"}, {"id", id.get<double>()}, {"result", Json::object()}});
        break;
      case Pong::Late:
        if (next_request_first) {
          write(Json::parse(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"), late_ms - 5);
        }
        write(ok, late_ms);
        break;
    }
  }
};

Json fixture_script(const std::string& id, const std::map<std::string, double>& overrides = {}) {
  const auto s =
      load_scenario(std::filesystem::path(MCP_FIXTURES_DIR) / "scenarios" / (id + ".json"), id,
                    test::fixture_defaults(), test::fixture_refs());
  return make_resolved(s.script, overrides);
}

// handshake, call captured, ping sent under "ping" (`ping` frame), pong expected, call answered.
Json ping_script(const Json& ping, const Json& expect_step = Json::object()) {
  Json expect = expect_step.empty()
                    ? Json{{"expect_response", "ping"}, {"check", test::check_def("pong")}}
                    : expect_step;
  return Json::array({Json{{"handshake", Json::object()}},
                      Json{{"expect", {{"method", "tools/call"}}},
                           {"as", "call"},
                           {"check", test::check_def("call-received")}},
                      Json{{"send", ping}, {"label", "ping"}}, expect,
                      Json{{"respond", "call"}, {"default", true}},
                      Json{{"serve_defaults", Json::object()}}});
}

struct Run {
  std::string reason;
  std::vector<Json> records;
};

Run run(const Json& resolved, FakeChannel& ch, FakeClient& client) {
  Transcript transcript;
  Interpreter interpreter(resolved, ch, transcript);
  client.start();
  Run r;
  r.reason = interpreter.run();
  r.records = transcript.records();
  return r;
}

bool sent_call_result(const FakeChannel& ch) {
  for (const auto& f : ch.sent) {
    if (f.contains("result") && f["id"] == Json(1) &&
        f["result"] == Json::parse(R"({"content":[{"type":"text","text":"nonce-1"}]})")) {
      return true;
    }
  }
  return false;
}

TEST(Interpreter, WhileAwaitingWithAGoodClientPasses) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  EXPECT_EQ(r.reason, "eof");
  for (const auto* id : {"handshake", "call-received", "pong"}) {
    EXPECT_EQ(find_check(r.records, id).value("verdict", ""), "PASS") << id;
  }
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["latency_ms"].size(), 1u);
  EXPECT_EQ(pong["level"], Json("MUST"));
  EXPECT_EQ(pong["expected"], Json(R"(response {"id":"srv-ping-1","result":{}} within 500.0 ms)"));
  EXPECT_NE(pong["actual"].get<std::string>().find(
                R"({"id":"srv-ping-1","jsonrpc":"2.0","result":{}} after )"),
            std::string::npos);
  EXPECT_TRUE(sent_call_result(ch));
  ASSERT_EQ(client.results.size(), 1u);
  EXPECT_EQ(records_of(r.records, "start").size(), 1u);
  EXPECT_EQ(records_of(r.records, "end").back()["reason"], Json("eof"));
  // The server offered the client's version back.
  EXPECT_EQ(ch.sent.front()["result"]["protocolVersion"], Json("2025-06-18"));
}

TEST(Interpreter, ErrorPongFailsButTheCallIsStillAnswered) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::Error;
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["verdict"], Json("FAIL"));
  EXPECT_NE(pong["actual"].get<std::string>().find(R"(error -32601 "Method not found")"),
            std::string::npos);
  EXPECT_TRUE(sent_call_result(ch));
  EXPECT_EQ(r.reason, "eof");
}

TEST(Interpreter, IdTypeChangedFails) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::StringId;
  const auto r =
      run(make_resolved(ping_script(Json::parse(R"({"jsonrpc":"2.0","id":5,"method":"ping"})"))),
          ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["verdict"], Json("FAIL"));
  EXPECT_NE(pong["actual"].get<std::string>().find(
                R"(id type changed: sent 5 (integer), got "5" (string))"),
            std::string::npos);
}

TEST(Interpreter, DuplicatePongFails) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::Twice;
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["verdict"], Json("FAIL"));
  EXPECT_NE(pong["actual"].get<std::string>().find("2 responses to the same request"),
            std::string::npos);
}

TEST(Interpreter, NonEmptyResultIsNonStrict) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::NonEmpty;
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  EXPECT_EQ(find_check(r.records, "pong")["verdict"], Json("NON_STRICT"));
}

TEST(Interpreter, MetaOnlyResultPasses) {
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
  EXPECT_EQ(find_check(r.records, "pong")["verdict"], Json("PASS"));
}

TEST(Interpreter, MissingPongFailsWithinTheCap) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::None;
  const auto r = run(fixture_script("ping/while-awaiting", {{"pong_cap_ms", 60}}), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["verdict"], Json("FAIL"));
  EXPECT_EQ(pong["actual"], Json("nothing within 60.0 ms"));
  EXPECT_FALSE(pong.contains("latency_ms"));
  EXPECT_TRUE(sent_call_result(ch));  // a failed pong does not stop the script
}

TEST(Interpreter, RoundedBigIdIsNonStrict) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::Rounded;
  const auto r = run(make_resolved(ping_script(Json::parse(
                         R"({"jsonrpc":"2.0","id":9007199254740993,"method":"ping"})"))),
                     ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["verdict"], Json("NON_STRICT")) << pong.dump();
  EXPECT_NE(pong["actual"].get<std::string>().find("rounded"), std::string::npos);
}

TEST(Interpreter, IdlePongAtTheNextRequestIsNonStrict) {
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
  EXPECT_EQ(pong["verdict"], Json("NON_STRICT")) << pong.dump();
  EXPECT_NE(pong["actual"].get<std::string>().find("answered only at the client's next request"),
            std::string::npos);
}

TEST(Interpreter, IdlePongLateWithoutANextRequestFails) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::Late;
  client.late_ms = 150;
  client.close_on_result = false;
  client.close_after = 4;
  const auto r =
      run(fixture_script("ping/idle", {{"pong_cap_ms", 100}, {"late_pong_ms", 1000}}), ch, client);
  const auto pong = find_check(r.records, "pong-while-idle");
  EXPECT_EQ(pong["verdict"], Json("FAIL")) << pong.dump();
  EXPECT_NE(pong["actual"].get<std::string>().find("too late (cap 100.0 ms)"), std::string::npos);
}

TEST(Interpreter, BurstIsAnsweredOnceEachWithLatencySummary) {
  FakeChannel ch;
  FakeClient client(ch);
  auto script = ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"b-${i}","method":"ping"})"));
  script[2]["repeat"] = 50;
  const auto r = run(make_resolved(script), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["verdict"], Json("PASS"));
  EXPECT_EQ(pong["latency_ms"].size(), 50u);
  EXPECT_TRUE(pong["latency"].contains("p95"));
  EXPECT_NE(
      pong["actual"].get<std::string>().find("50/50 answered, each exactly once; latency p50"),
      std::string::npos);
}

TEST(Interpreter, BurstWithALostPongFailsNamingIt) {
  FakeChannel ch;
  FakeClient client(ch);
  client.skip_id = "b-7";
  auto script = ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"b-${i}","method":"ping"})"));
  script[2]["repeat"] = 20;
  const auto r = run(make_resolved(script, {{"pong_cap_ms", 80}}), ch, client);
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["verdict"], Json("FAIL"));
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

TEST(Interpreter, MalformedIdAnsweredWithAnErrorPassesAndRecordsTheCode) {
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
  EXPECT_EQ(find_check(r.records, "no-success")["verdict"], Json("PASS"));
  const auto info = find_check(r.records, "error-code");
  EXPECT_EQ(info["verdict"], Json("INFORMATIONAL"));
  EXPECT_NE(
      info["actual"].get<std::string>().find(R"(error -32600 "Invalid Request" with id null)"),
      std::string::npos);
  EXPECT_TRUE(sent_call_result(ch));
}

TEST(Interpreter, MalformedIdAnsweredWithSuccessFails) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto r = run(
      make_resolved(ping_script(Json::parse(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})"),
                                no_response_step("success"))),
      ch, client);
  EXPECT_EQ(find_check(r.records, "no-success")["verdict"], Json("FAIL"));
  EXPECT_EQ(find_check(r.records, "error-code")["actual"],
            Json("no error response within 50.0 ms"));
}

TEST(Interpreter, NotificationPingMustGetNoReplyAtAll) {
  const Json ping = Json::parse(R"({"jsonrpc":"2.0","method":"ping"})");
  {
    FakeChannel ch;
    FakeClient client(ch);  // does not answer pings without id
    const auto r = run(make_resolved(ping_script(ping, no_response_step("any"))), ch, client);
    EXPECT_EQ(find_check(r.records, "no-success")["verdict"], Json("PASS"));
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
    EXPECT_EQ(find_check(r.records, "no-success")["verdict"], Json("FAIL"));
  }
}

TEST(Interpreter, ExpectNoneSeesAForbiddenMessage) {
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
  EXPECT_EQ(check["verdict"], Json("NON_STRICT"));  // a SHOULD
  EXPECT_NE(check["actual"].get<std::string>().find("notifications/cancelled"), std::string::npos);
}

TEST(Interpreter, UnsolicitedClientPingsAreAnsweredAtOnce) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.on_frame = [&](const Json& f) {
    if (f.contains("result") && f["id"] == Json(0)) {
      client.write(Json::parse(R"({"jsonrpc":"2.0","id":"keepalive-1","method":"ping"})"));
    }
    client.on_frame(f);
  };
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  ASSERT_GE(ch.sent.size(), 2u);
  EXPECT_EQ(ch.sent[1], Json::parse(R"({"jsonrpc":"2.0","id":"keepalive-1","result":{}})"));
  EXPECT_EQ(find_check(r.records, "handshake")["verdict"], Json("PASS"));
}

TEST(Interpreter, ObserveClientPingsRecordsCountAndIntervals) {
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
  EXPECT_EQ(check["verdict"], Json("INFORMATIONAL"));
  EXPECT_EQ(check["pings_at_ms"].size(), 2u);
  EXPECT_EQ(check["intervals_ms"].size(), 1u);
  EXPECT_EQ(ch.sent.back(), Json::parse(R"({"jsonrpc":"2.0","id":"k2","result":{}})"));
}

TEST(Interpreter, FloodIsBoundedAndFailsOnce) {
  FakeChannel ch(4096);
  FakeClient client(ch);
  ch.client_write(std::string(3000, 'x'));
  ch.client_write(std::string(3000, 'x'));
  ch.client_write(std::string(30000, 'x') + "\n");
  ch.client_write(std::string(9000, 'y') + "\n");  // a second over-long line: no second check
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  EXPECT_LE(ch.max_buffered(), 4096u);
  EXPECT_EQ(count_checks(r.records, "transport:line-too-long"), 1u);
  const auto flood = find_check(r.records, "transport:line-too-long");
  EXPECT_EQ(flood["verdict"], Json("FAIL"));
  EXPECT_EQ(flood["spec"], Json::array({"stdio.newline-delimited"}));
  // The session survives the flood.
  EXPECT_EQ(find_check(r.records, "pong")["verdict"], Json("PASS"));
}

TEST(Interpreter, NonMessageLinesFailValidMessageOnce) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.client_write("this is not json\n[1,2]\n\n");
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  EXPECT_EQ(count_checks(r.records, "transport:valid-message"), 1u);
  const auto check = find_check(r.records, "transport:valid-message");
  EXPECT_EQ(check["verdict"], Json("FAIL"));
  EXPECT_EQ(check["actual"], Json("a line that is not JSON: this is not json"));
  EXPECT_EQ(records_of(r.records, "raw").size(), 3u);  // the blank line is kept as evidence
  EXPECT_EQ(find_check(r.records, "pong")["verdict"], Json("PASS"));
}

TEST(Interpreter, AFailedExpectStopsTheScriptButServesDefaults) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.on_frame = [&](const Json& f) {
    if (f.contains("result") && f["id"] == Json(0)) {
      client.write(Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
      client.write(Json::parse(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"));
    } else {
      client.on_frame(f);
    }
  };
  const auto r = run(fixture_script("ping/while-awaiting", {{"expect_ms", 60}}), ch, client);
  const auto check = find_check(r.records, "call-received");
  EXPECT_EQ(check["verdict"], Json("FAIL"));
  EXPECT_NE(check["actual"].get<std::string>().find(
                "nothing matching within 60.0 ms (waiting unmatched: tools/list id 2;)"),
            std::string::npos);
  EXPECT_TRUE(find_check(r.records, "pong").is_null());  // not reached
  bool stopped = false;
  for (const auto& e : records_of(r.records, "event")) stopped |= e.value("stopped", false);
  EXPECT_TRUE(stopped);
  ASSERT_EQ(client.results.size(), 1u);  // tools/list answered the default way
  EXPECT_EQ(client.results[0]["result"]["tools"][0]["name"], Json("echo"));
  EXPECT_EQ(r.reason, "eof");
}

// Failure injection: the client disconnects after N messages, for every N. The
// interpreter must neither hang nor crash, and must record what it reached.
TEST(Interpreter, ClientDisconnectingAfterAnyMessageNeverHangs) {
  for (std::size_t n = 0; n <= 5; ++n) {
    SCOPED_TRACE("close after " + std::to_string(n) + " messages");
    FakeChannel ch;
    FakeClient client(ch);
    client.close_after = n;
    const auto started = Clock::now();
    const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - started).count(), 2.0);
    EXPECT_EQ(r.reason, "eof");
    ASSERT_FALSE(records_of(r.records, "end").empty());
    const auto handshake = find_check(r.records, "handshake");
    ASSERT_FALSE(handshake.is_null());
    EXPECT_EQ(handshake["verdict"], Json(n >= 2 ? "PASS" : "FAIL"));
    if (n < 3) {
      EXPECT_TRUE(find_check(r.records, "pong").is_null());
    } else {
      EXPECT_EQ(find_check(r.records, "pong")["verdict"], Json(n >= 4 ? "PASS" : "FAIL"));
    }
    if (n < 2) {
      EXPECT_NE(handshake["actual"].get<std::string>().find("the client closed the connection"),
                std::string::npos);
    }
  }
}

TEST(Interpreter, UndrainedStderrDoesNotBlockTheScript) {
  FakeChannel ch;
  ch.stderr_blocks = true;
  FakeClient client(ch);
  auto script = fixture_script("ping/while-awaiting");
  script["script"].insert(script["script"].begin() + 1, Json{{"stderr_bytes", 100000}});
  Transcript transcript;
  {
    Interpreter interpreter(script, ch, transcript);
    client.start();
    EXPECT_EQ(interpreter.run(), "eof");
  }  // the stderr writer is stopped here
  const auto records = transcript.records();
  EXPECT_EQ(find_check(records, "pong")["verdict"], Json("PASS"));
  const auto written = records_of(records, "stderr");
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0]["bytes"], Json(0));
  EXPECT_EQ(written[0]["requested"], Json(100000));
}

TEST(Interpreter, StderrStepsWriteTextAndFiller) {
  FakeChannel ch;
  FakeClient client(ch);
  auto script = fixture_script("ping/while-awaiting");
  script["script"].insert(script["script"].begin() + 1, Json{{"stderr", "hello\n"}});
  script["script"].insert(script["script"].begin() + 2, Json{{"stderr_bytes", 1000}});
  Transcript transcript;
  {
    Interpreter interpreter(script, ch, transcript);
    client.start();
    interpreter.run();
  }
  EXPECT_EQ(ch.stderr_text.size(), 1006u);
  EXPECT_EQ(ch.stderr_text.substr(0, 6), "hello\n");
  EXPECT_EQ(ch.stderr_text.back(), '\n');
}

TEST(Interpreter, CaseDeadlineEndsARunTheClientNeverCloses) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.on_frame = [&](const Json&) {};  // a client that goes silent after initialize
  const auto r =
      run(fixture_script("ping/while-awaiting", {{"case_deadline_ms", 150}}), ch, client);
  EXPECT_EQ(r.reason, "deadline");
  EXPECT_EQ(find_check(r.records, "handshake")["verdict"], Json("FAIL"));
  EXPECT_EQ(records_of(r.records, "end").back()["reason"], Json("deadline"));
}

TEST(Interpreter, WriteModesAndFaultStepsReachTheChannel) {
  FakeChannel ch;
  FakeClient client(ch);
  auto script = ping_script(Json::array(
      {Json::parse(
           R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}})"),
       Json::parse(R"({"jsonrpc":"2.0","id":"c","method":"ping"})")}));
  script[2]["write"] = "chopped";
  script[2]["chunk"] = 7;
  script.insert(script.begin() + 4, Json{{"send_raw", "garbage\n"}});
  script.insert(script.begin() + 5, Json{{"close_stdin", Json::object()}});
  script.insert(script.begin() + 6, Json{{"close_stdout", Json::object()}});
  const auto r = run(make_resolved(script), ch, client);
  EXPECT_EQ(find_check(r.records, "pong")["verdict"], Json("PASS"));
  EXPECT_EQ(ch.raw_sent, std::vector<std::string>{"garbage\n"});
  EXPECT_TRUE(ch.input_closed);
  EXPECT_TRUE(ch.output_closed);
  std::size_t chopped = 0;
  for (const auto& f : records_of(r.records, "frame")) {
    if (f["dir"] == Json("s2c") && f.contains("writes")) {
      ++chopped;
      EXPECT_EQ(f["writes"].get<std::size_t>(), (f["text"].get<std::string>().size() + 1 + 6) / 7);
    }
  }
  EXPECT_EQ(chopped, 2u);
  EXPECT_EQ(ch.modes[1], WriteMode::Chopped);
}

TEST(Interpreter, CoalescedFramesAreMarked) {
  FakeChannel ch;
  FakeClient client(ch);
  auto script = ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"c-${i}","method":"ping"})"));
  script[2]["repeat"] = 3;
  script[2]["write"] = "coalesced";
  const auto r = run(make_resolved(script), ch, client);
  std::size_t marked = 0;
  for (const auto& f : records_of(r.records, "frame")) marked += f.value("coalesced", 0) == 3;
  EXPECT_EQ(marked, 3u);
  EXPECT_EQ(find_check(r.records, "pong")["verdict"], Json("PASS"));
}

TEST(Interpreter, TemplateErrorAtRunTimeStopsTheScript) {
  FakeChannel ch;
  FakeClient client(ch);
  auto script = ping_script(
      Json::parse(R"({"jsonrpc":"2.0","id":"${call.params.missing}","method":"ping"})"));
  const auto r = run(make_resolved(script), ch, client);
  bool reported = false;
  for (const auto& e : records_of(r.records, "event")) {
    reported |= e["what"].get<std::string>().find("${call.params.missing}: no such member") !=
                std::string::npos;
  }
  EXPECT_TRUE(reported);
  EXPECT_TRUE(find_check(r.records, "pong").is_null());
  EXPECT_TRUE(sent_call_result(ch));  // served the default way after the stop
}

TEST(Interpreter, RespondWithResultAndErrorTemplates) {
  FakeChannel ch;
  FakeClient client(ch);
  auto script = make_resolved(Json::array(
      {Json{{"handshake", Json::object()}},
       Json{{"expect", {{"method", "tools/call"}}},
            {"as", "call"},
            {"check", test::check_def("call")}},
       Json{{"respond", "call"},
            {"result",
             {{"content", Json::array({{{"type", "text"}, {"text", "id was ${call.id}"}}})}}}},
       Json{{"serve_defaults", Json::object()}}}));
  run(script, ch, client);
  ASSERT_EQ(client.results.size(), 1u);
  EXPECT_EQ(client.results[0]["result"]["content"][0]["text"], Json("id was 1"));
}

Json error_script() {
  return make_resolved(
      ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"u-1","method":"x/unknown","params":{}})"),
                  Json{{"expect_error", "ping"},
                       {"code", -32601},
                       {"check", test::check_def("error-response")}}));
}

TEST(Interpreter, ExpectErrorJudgesTheCode) {
  const std::pair<Json, const char*> cases[] = {
      {Json::parse(R"({"code":-32601,"message":"Method not found"})"), "PASS"},
      {Json::parse(R"({"code":-32603,"message":"Internal error"})"), "NON_STRICT"},
      {nullptr, "FAIL"},  // a success result instead
  };
  for (const auto& [error, verdict] : cases) {
    SCOPED_TRACE(verdict);
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
    EXPECT_EQ(check["verdict"], Json(verdict)) << check.dump();
    EXPECT_FALSE(check.contains("latency_ms"));
    EXPECT_TRUE(sent_call_result(ch));
  }
}

TEST(Interpreter, ExpectErrorSilenceFails) {
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
  EXPECT_EQ(find_check(r.records, "e")["verdict"], Json("FAIL"));
}

TEST(Interpreter, UnmetMayCheckIsInformational) {
  FakeChannel ch;
  FakeClient client(ch);
  client.pong = FakeClient::Pong::None;
  const auto r = run(
      make_resolved(
          ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"m","method":"ping"})"),
                      Json{{"expect_response", "ping"}, {"check", test::check_def("pong", "MAY")}}),
          {{"pong_cap_ms", 50}}),
      ch, client);
  EXPECT_EQ(find_check(r.records, "pong")["verdict"], Json("INFORMATIONAL"));
  EXPECT_EQ(find_check(r.records, "pong")["level"], Json("MAY"));
}

TEST(Interpreter, UnmetInfoExpectDoesNotStopTheScript) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto script = make_resolved(
      Json::array({Json{{"handshake", Json::object()}},
                   Json{{"expect", {{"method", "tools/call"}}},
                        {"as", "call"},
                        {"check", test::check_def("call")}},
                   Json{{"expect", {{"method", "notifications/cancelled"}}},
                        {"within", "quiet_ms"},
                        {"check", test::check_def("cancelled", "INFO")}},
                   Json{{"respond", "call"}, {"result", {{"content", Json::array()}}}}}));
  const auto r = run(script, ch, client);
  EXPECT_EQ(find_check(r.records, "cancelled")["verdict"], Json("INFORMATIONAL"));
  ASSERT_EQ(client.results.size(), 1u);
  EXPECT_EQ(client.results[0]["result"],
            Json::parse(R"({"content":[]})"));  // the script's answer, not the default
}

TEST(Interpreter, LatencySummaryAndJudge) {
  const auto s = summarize_latencies({5, 1, 4, 2, 3, 6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(s.p50, 5);
  EXPECT_DOUBLE_EQ(s.p95, 10);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(summarize_latencies({}).max, 0);
  EXPECT_EQ(judge(Level::Must, Outcome::Degraded), Verdict::NonStrict);
  EXPECT_EQ(judge(Level::Should, Outcome::Broken), Verdict::NonStrict);
  EXPECT_EQ(judge(Level::Info, Outcome::Broken), Verdict::Informational);
  EXPECT_EQ(judge(Level::Must, Outcome::Broken), Verdict::Fail);
  EXPECT_EQ(judge(Level::May, Outcome::Met), Verdict::Pass);
  EXPECT_EQ(judge(Level::May, Outcome::Degraded), Verdict::Informational);
}

}  // namespace
}  // namespace mcpping
