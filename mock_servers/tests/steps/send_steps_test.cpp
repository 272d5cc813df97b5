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
using test::records_of;
using test::run;

TEST(SendSteps, WriteModesAndFaultStepsReachTheChannel) {
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
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("met"));
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

TEST(SendSteps, CoalescedFramesAreMarked) {
  FakeChannel ch;
  FakeClient client(ch);
  auto script = ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"c-${i}","method":"ping"})"));
  script[2]["repeat"] = 3;
  script[2]["write"] = "coalesced";
  const auto r = run(make_resolved(script), ch, client);
  std::size_t marked = 0;
  for (const auto& f : records_of(r.records, "frame")) marked += f.value("coalesced", 0) == 3;
  EXPECT_EQ(marked, 3u);
  EXPECT_EQ(find_check(r.records, "pong")["outcome"], Json("met"));
}

TEST(SendSteps, RespondWithResultAndErrorTemplates) {
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

// Regression (issue: ping/during-initialize wrote no `negotiated` event, so the runner gated
// its checks by --revision, not by the version the session ran at): a scripted answer to
// initialize settles the version as the handshake step does.
TEST(SendSteps, RegressionARespondedInitializeRecordedNoNegotiatedVersion) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto r = run(test::fixture_script("ping/during-initialize"), ch, client);
  std::vector<std::string> negotiated;
  for (const auto& e : records_of(r.records, "event")) {
    if (e.contains("negotiated")) negotiated.push_back(e["negotiated"].get<std::string>());
  }
  EXPECT_EQ(negotiated, std::vector<std::string>{"2025-06-18"});  // what the fake client offers
}

// Regression (client-ping/unanswered failed a client that gave the session up after its ping
// timed out, which the ping page lets it do): the next ping is an INFO expect, and answering a
// capture that never came stops the script (an event says why) instead of ending the server.
TEST(SendSteps, RegressionRespondingToAnUncapturedRequestStopsTheScript) {
  FakeChannel ch;
  FakeClient client(ch);
  const auto script = make_resolved(
      Json::array({Json{{"handshake", Json::object()}},
                   Json{{"expect", {{"method", "notifications/never"}}},
                        {"as", "never"},
                        {"within", "quiet_ms"},
                        {"check", test::check_def("never", "INFO")}},
                   Json{{"respond", "never"}, {"result", Json::object()}, {"label", "answer"}},
                   Json{{"serve_defaults", Json::object()}}}));
  const auto r = run(script, ch, client);
  EXPECT_EQ(find_check(r.records, "never")["outcome"], Json("broken"));
  bool said = false;
  for (const auto& e : records_of(r.records, "event"))
    said = said || e.value("what", "").find("the client never sent it") != std::string::npos;
  EXPECT_TRUE(said);
  for (const auto& f : records_of(r.records, "frame")) EXPECT_FALSE(f.contains("label"));
}

}  // namespace
}  // namespace mcpping
