#include <gtest/gtest.h>

#include "engine/interpreter.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

using test::FakeChannel;
using test::FakeClient;
using test::find_check;
using test::make_resolved;
using test::records_of;
using test::run;

// The per-request fields a modern client puts in _meta.
Json modern_meta(const std::string& version = "2026-07-28") {
  return Json{{"io.modelcontextprotocol/protocolVersion", version},
              {"io.modelcontextprotocol/clientCapabilities", Json::object()},
              {"io.modelcontextprotocol/clientInfo", {{"name", "fake"}, {"version", "1"}}}};
}

Json call_request(const Json& meta) {
  Json call = Json::parse(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"nonce-1"}}})");
  if (!meta.is_null()) call["params"]["_meta"] = meta;
  return call;
}

// discover (probe check), the call, a ping into the session, no response, the call answered.
Json modern_script() {
  return Json::array(
      {Json{{"discover", Json::object()}, {"check", test::check_def("discovered", "SHOULD")}},
       Json{{"expect", {{"method", "tools/call"}}},
            {"as", "call"},
            {"check", test::check_def("call-received")}},
       Json{{"send", {{"jsonrpc", "2.0"}, {"id", "p"}, {"method", "ping"}}}, {"label", "ping"}},
       Json{{"expect_no_response", "ping"},
            {"forbid", "any"},
            {"check", test::check_def("no-response")},
            {"info_check", test::check_def("reply", "INFO")}},
       Json{{"respond", "call"}, {"default", true}}, Json{{"serve_defaults", Json::object()}}});
}

// A modern client: probes (unless `probe` is false), then calls; answers a ping with `reply`
// (null: stays silent); closes once the call has its result.
struct ModernClient {
  FakeChannel& ch;
  bool probe = true;
  double start_delay_ms = 0;  // its first request arrives this late (a slow start)
  Json meta = modern_meta();
  Json reply;
  std::vector<Json> results;

  explicit ModernClient(FakeChannel& channel) : ch(channel) {
    ch.on_frame = [this](const Json& f) { on_frame(f); };
  }
  void start() {
    if (!probe) return ch.client_send(call_request(meta), start_delay_ms);
    ch.client_send(Json{{"jsonrpc", "2.0"},
                        {"id", 0},
                        {"method", "server/discover"},
                        {"params", {{"_meta", meta}}}},
                   start_delay_ms);
  }
  void on_frame(const Json& f) {
    if (f.contains("method")) {
      if (f.contains("id") && !reply.is_null()) {
        Json answer = reply;
        answer["id"] = f["id"];
        ch.client_send(answer);
      }
      return;
    }
    if (f["id"] == Json(0)) {
      results.push_back(f);
      ch.client_send(call_request(meta));
    } else if (f["id"] == Json(1)) {
      results.push_back(f);
      ch.client_close();
    }
  }
};

test::RunResult run_modern(const Json& script, FakeChannel& ch, ModernClient& client) {
  Transcript transcript;
  Interpreter interpreter(make_resolved(script), ch, transcript);
  client.start();
  test::RunResult r;
  r.reason = interpreter.run();
  r.records = transcript.records();
  return r;
}

std::optional<std::string> negotiated(const std::vector<Json>& records) {
  for (const auto& e : records_of(records, "event"))
    if (e.contains("negotiated")) return e["negotiated"].get<std::string>();
  return std::nullopt;
}

TEST(Discover, AnswersTheProbeAndRunsAModernSession) {
  FakeChannel ch;
  ModernClient client(ch);
  const auto r = run_modern(modern_script(), ch, client);
  EXPECT_EQ(find_check(r.records, "discovered")["outcome"], Json("met"));
  EXPECT_EQ(negotiated(r.records), "2026-07-28");
  ASSERT_EQ(client.results.size(), 2u);
  const auto& discovered = client.results[0]["result"];
  EXPECT_EQ(discovered["supportedVersions"], Json::array({"2026-07-28"}));
  EXPECT_EQ(discovered["resultType"], Json("complete"));
  EXPECT_TRUE(discovered["_meta"].contains("io.modelcontextprotocol/serverInfo"));
  EXPECT_EQ(client.results[1]["result"]["resultType"], Json("complete"));
  EXPECT_EQ(find_check(r.records, "no-response")["outcome"], Json("met"));
  EXPECT_EQ(find_check(r.records, "reply")["outcome"], Json("met"));
  for (const auto& c : records_of(r.records, "check"))
    EXPECT_NE(c["check"].get<std::string>().rfind("modern:", 0), 0u) << c.dump();
}

// As for handshake: the first request may come later than expect_ms, a slow start is the
// machine's; the session is waited for until the case deadline.
TEST(Discover, AProbeLaterThanExpectMsStillStartsTheSession) {
  FakeChannel ch;
  ModernClient client(ch);
  client.start_delay_ms = 300;
  Transcript transcript;
  Interpreter interpreter(make_resolved(modern_script(), {{"expect_ms", 60}}), ch, transcript);
  client.start();
  interpreter.run();
  const auto records = transcript.records();
  EXPECT_EQ(find_check(records, "discovered")["outcome"], Json("met"));
  EXPECT_EQ(find_check(records, "no-response")["outcome"], Json("met"));
  EXPECT_EQ(client.results.size(), 2u);
}

TEST(Discover, AResponseOfAnyKindBreaksNoResponseAndIsRecorded) {
  for (const auto& reply :
       {Json::parse(R"({"jsonrpc":"2.0","result":{}})"),
        Json::parse(R"({"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"}})")}) {
    FakeChannel ch;
    ModernClient client(ch);
    client.reply = reply;
    const auto r = run_modern(modern_script(), ch, client);
    EXPECT_EQ(find_check(r.records, "no-response")["outcome"], Json("broken")) << reply.dump();
    const auto info = find_check(r.records, "reply");
    EXPECT_EQ(info["outcome"], Json("broken"));
    EXPECT_NE(info["actual"].get<std::string>().find(reply.contains("error") ? "-32601" : "result"),
              std::string::npos)
        << info.dump();
  }
}

TEST(Discover, AClientThatDoesNotProbeBreaksTheCheckAndItsRequestStillServes) {
  FakeChannel ch;
  ModernClient client(ch);
  client.probe = false;
  const auto r = run_modern(modern_script(), ch, client);
  const auto probe = find_check(r.records, "discovered");
  EXPECT_EQ(probe["outcome"], Json("broken"));
  EXPECT_NE(probe["actual"].get<std::string>().find("without probing"), std::string::npos);
  EXPECT_EQ(negotiated(r.records), "2026-07-28");
  EXPECT_EQ(find_check(r.records, "call-received")["outcome"], Json("met"));
  ASSERT_EQ(client.results.size(), 1u);
}

TEST(Discover, MissingMetaFieldsAreRecordedOnceAndTheRequestIsServed) {
  FakeChannel ch;
  ModernClient client(ch);
  client.meta = Json{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}};
  const auto r = run_modern(modern_script(), ch, client);
  const auto meta = find_check(r.records, "modern:request-meta");
  EXPECT_EQ(meta["outcome"], Json("broken"));
  EXPECT_EQ(meta["implicit"], Json(true));
  EXPECT_NE(meta["actual"].get<std::string>().find("clientCapabilities"), std::string::npos);
  EXPECT_EQ(find_check(r.records, "modern:client-info")["outcome"], Json("broken"));
  EXPECT_EQ(test::count_checks(r.records, "modern:request-meta"), 1u);
  EXPECT_EQ(client.results.size(), 2u);
}

TEST(Discover, ALegacyClientGetsItsHandshakeAndTheCaseIsUnsupported) {
  FakeChannel ch;
  FakeClient client(ch);
  client.version = "2025-11-25";
  const auto r = run(make_resolved(modern_script()), ch, client);
  EXPECT_EQ(negotiated(r.records), "2025-11-25");
  EXPECT_EQ(records_of(r.records, "unsupported").size(), 1u);
  ASSERT_FALSE(ch.sent.empty());
  EXPECT_EQ(ch.sent.front()["result"]["protocolVersion"], Json("2025-11-25"));
  EXPECT_TRUE(test::sent_call_result(ch));  // served the default way after the stop
}

TEST(Discover, AnInitializeOfferingAModernVersionSelectsTheNewestLegacyOne) {
  FakeChannel ch;
  FakeClient client(ch);
  client.version = "2026-07-28";
  const auto r = run(make_resolved(modern_script()), ch, client);
  EXPECT_EQ(negotiated(r.records), "2025-11-25");
}

TEST(Discover, AClientPingInAModernSessionGetsMethodNotFound) {
  FakeChannel ch;
  ModernClient client(ch);
  client.probe = true;
  ch.on_frame = [&](const Json& f) {
    if (f["id"] == Json(0)) {
      ch.client_send(Json{{"jsonrpc", "2.0"},
                          {"id", 7},
                          {"method", "ping"},
                          {"params", {{"_meta", modern_meta()}}}});
    } else if (f["id"] == Json(7)) {
      ch.client_close();
    }
  };
  const auto script =
      Json::array({Json{{"discover", Json::object()}}, Json{{"serve_defaults", Json::object()}}});
  run_modern(script, ch, client);
  ASSERT_FALSE(ch.sent.empty());
  EXPECT_EQ(ch.sent.back()["error"]["code"], Json(-32601));
}

}  // namespace
}  // namespace mcpping
