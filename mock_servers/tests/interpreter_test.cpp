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
using test::records_of;
using test::run;
using test::sent_call_result;

TEST(Interpreter, WhileAwaitingWithAGoodClientPasses) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  EXPECT_EQ(r.reason, "eof");
  for (const auto* id : {"handshake", "call-received", "pong"}) {
    EXPECT_EQ(find_check(r.records, id).value("outcome", ""), "met") << id;
  }
  const auto pong = find_check(r.records, "pong");
  EXPECT_EQ(pong["latency_ms"].size(), 1u);
  EXPECT_EQ(pong["level"], Json("MUST"));
  EXPECT_EQ(pong["expected"],
            Json(R"(response {"id":"srv-ping-1","jsonrpc":"2.0","result":{}} within 500.0 ms)"));
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

TEST(Interpreter, AFailedExpectStopsTheScriptButServesDefaults) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.on_frame = [&](const Json& f) {
    if (f.contains("result") && f["id"] == Json(0)) {
      client.write(Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
      // Not one the default service answers at once: it waits for the script.
      client.write(Json::parse(R"({"jsonrpc":"2.0","id":2,"method":"resources/read"})"));
    } else {
      client.on_frame(f);
    }
  };
  const auto r = run(fixture_script("ping/while-awaiting", {{"expect_ms", 60}}), ch, client);
  const auto check = find_check(r.records, "call-received");
  EXPECT_EQ(check["outcome"], Json("broken"));
  EXPECT_NE(check["actual"].get<std::string>().find(
                "nothing matching within 60.0 ms (waiting unmatched: resources/read id 2;)"),
            std::string::npos);
  EXPECT_TRUE(find_check(r.records, "pong").is_null());  // not reached
  bool stopped = false;
  for (const auto& e : records_of(r.records, "event")) stopped |= e.value("stopped", false);
  EXPECT_TRUE(stopped);
  ASSERT_EQ(client.results.size(), 1u);  // answered the default way once the script stopped
  EXPECT_EQ(client.results[0]["error"]["code"], Json(-32601));
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
    EXPECT_EQ(handshake["outcome"], Json(n >= 2 ? "met" : "broken"));
    if (n < 3) {
      EXPECT_TRUE(find_check(r.records, "pong").is_null());
    } else {
      EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json(n >= 4 ? "met" : "broken"));
    }
    if (n < 2) {
      EXPECT_NE(handshake["actual"].get<std::string>().find("the client closed the connection"),
                std::string::npos);
    }
  }
}

TEST(Interpreter, CaseDeadlineEndsARunTheClientNeverCloses) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.on_frame = [&](const Json&) {};  // a client that goes silent after initialize
  const auto r =
      run(fixture_script("ping/while-awaiting", {{"case_deadline_ms", 150}}), ch, client);
  EXPECT_EQ(r.reason, "deadline");
  EXPECT_EQ(find_check(r.records, "handshake")["outcome"], Json("broken"));
  EXPECT_EQ(records_of(r.records, "end").back()["reason"], Json("deadline"));
}

// Regression: an initialize later than expect_ms (Node.js starting on a loaded machine) stopped
// the script at the handshake, so the case's own checks were "not reached" and FAIL; the
// lifecycle puts no bound on it, and the first initialize is waited for until the case deadline.
TEST(Interpreter, RegressionLateInitializeStoppedTheScript) {
  FakeChannel ch;
  FakeClient client(ch);
  client.initialize_delay_ms = 300;
  const auto r = run(fixture_script("ping/while-awaiting", {{"expect_ms", 60}}), ch, client);
  const auto handshake = find_check(r.records, "handshake");
  EXPECT_EQ(handshake["outcome"], Json("met")) << handshake;
  EXPECT_EQ(handshake["expected"], Json("initialize request, then notifications/initialized"));
  for (const auto* id : {"call-received", "pong"}) {
    EXPECT_EQ(find_check(r.records, id).value("outcome", ""), "met") << id;
  }
  EXPECT_TRUE(sent_call_result(ch));
  bool noted = false;
  for (const auto& e : records_of(r.records, "event")) {
    noted |= e["what"].get<std::string>().find("a slow start: initialize after ") == 0 &&
             e["what"].get<std::string>().find("later than expect_ms (60.0 ms); taken") !=
                 std::string::npos;
  }
  EXPECT_TRUE(noted);
}

// Regression: a client that started slowly (an interpreter loading a large library on a
// loaded machine) had its case deadline spent before its first line: time starts at contact.
TEST(Interpreter, RegressionTheCaseDeadlineRanBeforeTheClientsFirstContact) {
  FakeChannel ch;
  FakeClient client(ch);
  client.initialize_delay_ms = 5000;  // later than the case deadline, inside the start-up budget
  const auto r =
      run(fixture_script("ping/while-awaiting", {{"expect_ms", 60}, {"case_deadline_ms", 150}}), ch,
          client);
  EXPECT_EQ(find_check(r.records, "handshake")["outcome"], Json("met"));
  bool contact = false;
  for (const auto& e : records_of(r.records, "event")) contact |= e.contains("first_contact");
  EXPECT_TRUE(contact);
}

TEST(Interpreter, NoContactWithinTheStartupBudgetEndsTheRunAndSaysSo) {
  FakeChannel ch;
  FakeClient client(ch);
  client.initialize_delay_ms = 5000;  // after the start-up budget: the run ends first
  const auto r =
      run(fixture_script("ping/while-awaiting",
                         {{"expect_ms", 60}, {"case_deadline_ms", 150}, {"startup_ms", 100}}),
          ch, client);
  EXPECT_EQ(r.reason, "deadline");
  bool said = false;
  for (const auto& e : records_of(r.records, "event"))
    said |= e.value("startup_exceeded", 0.0) == 100.0 &&
            e["what"].get<std::string>().find("did not start within 0.1 s") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_TRUE(find_check(r.records, "call-received").is_null());  // not reached
}

// Regression: a client that never sent notifications/initialized had every later check "not
// reached"; a lenient server records the handshake and goes on.
TEST(Interpreter, MissingInitializedFailsTheHandshakeOnlyAndTheScriptGoesOn) {
  FakeChannel ch;
  FakeClient client(ch);
  client.initialized = FakeClient::Initialized::Never;
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto handshake = find_check(r.records, "handshake");
  EXPECT_EQ(handshake["outcome"], Json("broken"));
  EXPECT_EQ(handshake["step"], Json(0));
  EXPECT_NE(handshake["actual"].get<std::string>().find(
                "no notifications/initialized by the end of the run"),
            std::string::npos)
      << handshake;
  EXPECT_NE(handshake["actual"].get<std::string>().find("the client sent tools/call first"),
            std::string::npos)
      << handshake;
  EXPECT_EQ(find_check(r.records, "call-received")["outcome"], Json("met"));
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("met"));
  EXPECT_TRUE(sent_call_result(ch));
}

TEST(Interpreter, InitializedAfterTheFirstRequestIsMetLate) {
  FakeChannel ch;
  FakeClient client(ch);
  client.initialized = FakeClient::Initialized::AfterTheCall;
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto handshake = find_check(r.records, "handshake");
  EXPECT_EQ(handshake["outcome"], Json("met"));
  EXPECT_NE(handshake["actual"].get<std::string>().find("late: the server had gone on"),
            std::string::npos)
      << handshake;
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("met"));
}

// A silent client without notifications/initialized: the server goes on after the quiet
// window instead of waiting for it.
TEST(Interpreter, SilentClientWithoutInitializedStillGetsPinged) {
  FakeChannel ch;
  FakeClient client(ch);
  client.initialized = FakeClient::Initialized::Never;
  ch.on_frame = [&](const Json& f) {
    if (f.contains("method") && f["method"] == "ping") {
      client.answer_ping(f);
      ch.client_close();
    }
  };
  auto script = ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"idle-ping","method":"ping"})"));
  // No tools/call and nothing to answer: the ping comes while the client is idle.
  script.erase(4);  // respond call
  script.erase(1);  // expect tools/call
  const auto r = run(make_resolved(script), ch, client);
  EXPECT_EQ(find_check(r.records, "handshake")["outcome"], Json("broken"));
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("met"));
}

// Regression: a client ping sent before notifications/initialized was answered {} while the
// handshake waited, so the script's error answer never went out and the client was blamed.
TEST(Interpreter, ClientPingBeforeInitializedReachesTheScript) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.on_frame = [&](const Json& f) {
    if (f.contains("id") && f["id"] == Json(0) && f.contains("result")) {
      client.write(Json::parse(R"({"jsonrpc":"2.0","id":7,"method":"ping"})"));
      client.write(Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
    } else if (f.contains("id") && f["id"] == Json(7)) {
      client.results.push_back(f);
      ch.client_close();
    }
  };
  const auto r = run(fixture_script("client-ping/method-not-found"), ch, client);
  EXPECT_EQ(find_check(r.records, "handshake")["outcome"], Json("met"));
  EXPECT_EQ(find_check(r.records, "ping-received")["outcome"], Json("met"));
  ASSERT_EQ(client.results.size(), 1u);
  EXPECT_EQ(client.results[0]["error"]["code"], Json(-32601)) << client.results[0];
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

}  // namespace
}  // namespace mcpping
