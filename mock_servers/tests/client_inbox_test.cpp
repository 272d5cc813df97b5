#include <gtest/gtest.h>

#include "engine/interpreter.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

using test::count_checks;
using test::FakeChannel;
using test::FakeClient;
using test::find_check;
using test::fixture_script;
using test::records_of;
using test::run;

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
