#include <gtest/gtest.h>

#include "engine/interpreter.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

using test::check_def;
using test::count_checks;
using test::FakeChannel;
using test::FakeClient;
using test::find_check;
using test::fixture_script;
using test::make_resolved;
using test::records_of;
using test::run;

Json request(int id, const std::string& method) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
}

const Json kInitialized = Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
const Json kCall = Json::parse(
    R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"nonce-1"}}})");

// The "served by default" events, as (method, id).
std::vector<std::pair<std::string, Json>> served(const std::vector<Json>& records) {
  std::vector<std::pair<std::string, Json>> out;
  for (const auto& e : records_of(records, "event"))
    if (e.contains("served")) out.emplace_back(e["served"].get<std::string>(), e["id"]);
  return out;
}

// The frame the server sent with this id, or null.
Json sent_with_id(const FakeChannel& ch, const Json& id) {
  for (const auto& f : ch.sent)
    if (f.contains("id") && f["id"] == id && !f.contains("method")) return f;
  return nullptr;
}

TEST(ClientInbox, UnsolicitedClientPingsAreAnsweredAtOnce) {
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
  EXPECT_EQ(find_check(r.records, "handshake")["outcome"], Json("met"));
  EXPECT_EQ(served(r.records),
            (std::vector<std::pair<std::string, Json>>{{"ping", "keepalive-1"}}));
}

// Regression: a client that lists tools inside connect (or before every call) waits for the
// list before it sends its tools/call, and the script waited for the tools/call: call-received
// read "waiting unmatched: tools/list id 5", the ping was never sent and the case failed. A
// real server answers tools/list at once.
TEST(ClientInbox, RegressionToolsListBeforeCallStalledTheScript) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.on_frame = [&](const Json& f) {
    if (f.contains("result") && f["id"] == Json(0)) {
      client.write(kInitialized);
      client.write(request(5, "tools/list"));
    } else if (f.contains("result") && f["id"] == Json(5)) {
      client.write(kCall);  // only once the list came, as such a library does
    } else {
      client.on_frame(f);
    }
  };
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  for (const auto* id : {"handshake", "call-received", "pong"})
    EXPECT_EQ(find_check(r.records, id).value("outcome", ""), "met") << id;
  EXPECT_TRUE(test::sent_call_result(ch));
  EXPECT_EQ(sent_with_id(ch, 5)["result"]["tools"][0]["name"], Json("echo"));
  EXPECT_EQ(served(r.records), (std::vector<std::pair<std::string, Json>>{{"tools/list", 5}}));
  bool named = false;
  for (const auto& e : records_of(r.records, "event"))
    named |= e.value("what", "").rfind("served by default: tools/list id 5", 0) == 0;
  EXPECT_TRUE(named);
}

// Every request of the default service, while the script waits for the call: each answered at
// once, as the case's default server answers it (its handshake declares logging).
TEST(ClientInbox, DefaultServiceAnswersListingsSettingsAndPingsAsTheCasesServer) {
  FakeChannel ch;
  FakeClient client(ch);
  const std::vector<std::string> methods = {
      "ping",         "tools/list",          "resources/list",  "resources/templates/list",
      "prompts/list", "completion/complete", "logging/setLevel"};
  std::size_t answered = 0;
  ch.on_frame = [&](const Json& f) {
    if (f.contains("result") && f["id"] == Json(0)) {
      client.write(kInitialized);
      client.write(request(10, methods[0]));
    } else if (!f.contains("method") && f.contains("id") && f["id"].is_number_integer() &&
               f["id"].get<int>() >= 10) {
      // One at a time: the next goes out only once the server answered the last.
      if (++answered < methods.size())
        client.write(request(10 + static_cast<int>(answered), methods[answered]));
      else
        client.write(kCall);
    } else {
      client.on_frame(f);
    }
  };
  auto script = fixture_script("ping/while-awaiting");
  script["script"][0]["capabilities"] = {{"logging", Json::object()}};
  const auto r = run(script, ch, client);
  EXPECT_EQ(find_check(r.records, "pong").value("outcome", ""), "met");
  ASSERT_EQ(served(r.records).size(), methods.size());
  EXPECT_EQ(sent_with_id(ch, 10)["result"], Json::object());
  EXPECT_EQ(sent_with_id(ch, 11)["result"]["tools"][0]["name"], Json("echo"));
  for (int id = 12; id <= 15; ++id)  // features the case does not declare
    EXPECT_EQ(sent_with_id(ch, id)["error"]["code"], Json(-32601)) << id;
  EXPECT_EQ(sent_with_id(ch, 16)["result"], Json::object());  // logging is declared
}

// The rule's other half: a request of a method a later step expects waits for that step, even
// while an earlier step waits for something else; other requests still wait for the script.
TEST(ClientInbox, ARequestALaterStepExpectsWaitsForIt) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.on_frame = [&](const Json& f) {
    if (f.contains("result") && f["id"] == Json(0)) {
      client.write(kInitialized);
      client.write(request(5, "tools/list"));  // without waiting for its answer
      client.write(request(6, "ping"));
      client.write(request(7, "resources/read"));
      client.write(kCall);
    } else {
      client.on_frame(f);
    }
  };
  const auto script = Json::array(
      {Json{{"handshake", Json::object()}},
       Json{{"expect", {{"method", "tools/call"}}}, {"as", "call"}, {"check", check_def("call")}},
       Json{{"respond", "call"}, {"default", true}},
       Json{{"expect", {{"method", "tools/list"}}}, {"as", "list"}, {"check", check_def("list")}},
       Json{{"respond", "list"}, {"default", true}}, Json{{"serve_defaults", Json::object()}}});
  const auto r = run(make_resolved(script), ch, client);
  EXPECT_EQ(find_check(r.records, "call").value("outcome", ""), "met");
  EXPECT_EQ(find_check(r.records, "list").value("outcome", ""), "met");
  // The ping was served at once; the listing waited for its step; resources/read (no default
  // service) for the end of the script.
  EXPECT_EQ(served(r.records), (std::vector<std::pair<std::string, Json>>{{"ping", 6}}));
  std::vector<Json> order;
  for (const auto& f : ch.sent)
    if (f.contains("id") && !f.contains("method")) order.push_back(f["id"]);
  EXPECT_EQ(order, (std::vector<Json>{0, 6, 1, 5, 7}));
}

// The handshake holds what the client sends before notifications/initialized for the script:
// a listing nobody expects is served at the script's next wait.
TEST(ClientInbox, AListingTheHandshakeHeldIsServedAtTheNextWait) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.on_frame = [&](const Json& f) {
    if (f.contains("result") && f["id"] == Json(0)) {
      client.write(request(5, "tools/list"));  // before (and without) initialized
    } else if (f.contains("result") && f["id"] == Json(5)) {
      client.write(kCall);
    } else {
      client.on_frame(f);
    }
  };
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  EXPECT_EQ(find_check(r.records, "call-received").value("outcome", ""), "met");
  EXPECT_EQ(find_check(r.records, "pong").value("outcome", ""), "met");
  EXPECT_EQ(served(r.records), (std::vector<std::pair<std::string, Json>>{{"tools/list", 5}}));
}

TEST(ClientInbox, FloodIsBoundedAndFailsOnce) {
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
  EXPECT_EQ(flood["outcome"], Json("broken"));
  EXPECT_EQ(flood["spec"], Json::array({"stdio.newline-delimited"}));
  // The session survives the flood.
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("met"));
}

TEST(ClientInbox, NonMessageLinesFailValidMessageOnce) {
  FakeChannel ch;
  FakeClient client(ch);
  ch.client_write("this is not json\n[1,2]\n\n");
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  EXPECT_EQ(count_checks(r.records, "transport:valid-message"), 1u);
  const auto check = find_check(r.records, "transport:valid-message");
  EXPECT_EQ(check["outcome"], Json("broken"));
  EXPECT_EQ(check["actual"], Json("a line that is not JSON: this is not json"));
  EXPECT_EQ(records_of(r.records, "raw").size(), 3u);  // the blank line is kept as evidence
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("met"));
}

// "Cancellation notifications MUST only reference requests that: Were previously issued in the
// same direction" and "The initialize request MUST NOT be cancelled by clients": a client
// notifications/cancelled naming its own tools/call is fine; naming an id it never sent, or
// its initialize, is cancellation:references broken, once per case.
TEST(ClientInbox, ACancellationMustNameARequestTheClientSentOtherThanInitialize) {
  const auto cancel = [](const Json& id) {
    return Json{
        {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", id}}}};
  };
  const std::pair<Json, const char*> cases[] = {
      {Json(1), nullptr}, {Json(77), "names no request"}, {Json(0), "is the client's initialize"}};
  for (const auto& [id, problem] : cases) {
    SCOPED_TRACE(id.dump());
    FakeChannel ch;
    FakeClient client(ch);
    ch.on_frame = [&, id = id](const Json& f) {
      client.on_frame(f);
      if (f.value("id", Json()) == Json(0) && f.contains("result")) {  // after its tools/call 1
        client.write(cancel(id));
        client.write(cancel(id));
      }
    };
    const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
    const auto check = find_check(r.records, "cancellation:references");
    if (!problem) {
      EXPECT_TRUE(check.is_null()) << check;
      continue;
    }
    EXPECT_EQ(count_checks(r.records, "cancellation:references"), 1u);
    EXPECT_EQ(check["outcome"], Json("broken"));
    EXPECT_NE(check["actual"].get<std::string>().find(problem), std::string::npos) << check;
  }
}

// The coalesced pings answered with one line holding the three pongs as a JSON array.
test::RunResult run_batched_pongs(const std::string& version) {
  FakeChannel ch;
  FakeClient client(ch);
  client.version = version;
  Json pongs = Json::array();
  ch.on_frame = [&](const Json& f) {
    if (f.value("method", "") != "ping") return client.on_frame(f);
    pongs.push_back(Json{{"jsonrpc", "2.0"}, {"id", f["id"]}, {"result", Json::object()}});
    if (pongs.size() == 3) ch.client_write(pongs.dump() + "\n");
  };
  return run(fixture_script("ping/coalesced"), ch, client);
}

// Regression (batches were always invalid): when 2025-03-26 was negotiated, a line may be a
// JSON-RPC batch ("Messages may be JSON-RPC requests, notifications, responses—or a JSON-RPC
// batch"); each element is a message of its own, in order: three pongs in one line are three
// pongs.
TEST(ClientInbox, ABatchLineIsEachOfItsMessagesWhen20250326WasNegotiated) {
  const auto r = run_batched_pongs("2025-03-26");
  EXPECT_EQ(find_check(r.records, "pongs")["outcome"], Json("met"))
      << find_check(r.records, "pongs");
  EXPECT_TRUE(find_check(r.records, "transport:valid-message").is_null());
  std::vector<Json> batched;
  for (const auto& f : records_of(r.records, "frame"))
    if (f.value("dir", "") == "c2s" && f.value("batch", 0) == 3) batched.push_back(f["json"]["id"]);
  EXPECT_EQ(batched, (std::vector<Json>{"co-1", "co-2", "co-3"}));
  bool noted = false;
  for (const auto& raw : records_of(r.records, "raw"))
    if (raw.value("note", "").find("a JSON-RPC batch of 3") != std::string::npos) noted = true;
  EXPECT_TRUE(noted) << "the line itself is kept as evidence";
}

TEST(ClientInbox, ABatchLineIsInvalidUnless20250326WasNegotiated) {
  const auto r = run_batched_pongs("2025-06-18");
  const auto check = find_check(r.records, "transport:valid-message");
  EXPECT_EQ(check["outcome"], Json("broken"));
  EXPECT_NE(check["actual"].get<std::string>().find(
                "batches exist only in revision 2025-03-26 (negotiated: 2025-06-18)"),
            std::string::npos)
      << check;
  EXPECT_EQ(find_check(r.records, "pongs")["outcome"], Json("broken"));
}

TEST(ClientInbox, ABatchHoldingInitializeIsInvalidEvenIn20250326) {
  FakeChannel ch;
  FakeClient client(ch);
  client.version = "2025-03-26";
  ch.on_frame = [&](const Json& f) {
    if (f.value("method", "") == "ping") {
      ch.client_write(
          R"([{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}},{"jsonrpc":"2.0","method":"notifications/progress"}])"
          "\n");
    }
    client.on_frame(f);
  };
  const auto r = run(fixture_script("ping/while-awaiting"), ch, client);
  const auto check = find_check(r.records, "transport:valid-message");
  EXPECT_EQ(check["outcome"], Json("broken"));
  EXPECT_EQ(check["spec"], Json::array({"lifecycle.initialize-not-batched"}));
  EXPECT_NE(check["actual"].get<std::string>().find("initialize inside a batch"), std::string::npos)
      << check;
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("met"));
}

}  // namespace
}  // namespace mcpping
