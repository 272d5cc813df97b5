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

}  // namespace
}  // namespace mcpping
