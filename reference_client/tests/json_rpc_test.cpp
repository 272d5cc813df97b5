#include "mcp/json_rpc.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace mcp {
namespace {

using nlohmann::json;

TEST(RequestId, AcceptsStringsAndIntegersOnly) {
  EXPECT_TRUE(RequestId::from_json(json("abc")));
  EXPECT_TRUE(RequestId::from_json(json("")));
  EXPECT_TRUE(RequestId::from_json(json(0)));
  EXPECT_TRUE(RequestId::from_json(json(-7)));
  EXPECT_TRUE(RequestId::from_json(json::parse("18446744073709551615")));

  EXPECT_FALSE(RequestId::from_json(json()));
  EXPECT_FALSE(RequestId::from_json(json(true)));
  EXPECT_FALSE(RequestId::from_json(json(1.5)));
  EXPECT_FALSE(RequestId::from_json(json::parse("1.0")));
  EXPECT_FALSE(RequestId::from_json(json::parse("18446744073709551616")));  // 2^64: a double
  EXPECT_FALSE(RequestId::from_json(json::object()));
  EXPECT_FALSE(RequestId::from_json(json::array({1})));
}

TEST(RequestId, ComparesTypeStrictly) {
  // nlohmann's own equality says yes to these; ids must not.
  ASSERT_TRUE(json(1) == json(1.0));
  EXPECT_NE(RequestId(std::uint64_t{1}), RequestId("1"));
  EXPECT_NE(RequestId(std::uint64_t{0}), RequestId(""));
  EXPECT_EQ(RequestId(std::int64_t{5}), RequestId(std::uint64_t{5}));
  EXPECT_EQ(*RequestId::from_json(json::parse("5")), *RequestId::from_json(json(std::int64_t{5})));
  EXPECT_NE(RequestId(std::int64_t{-1}), RequestId(std::numeric_limits<std::uint64_t>::max()));
}

TEST(RequestId, RoundTripsTheExactText) {
  for (const char* text :
       {"0", "-1", "9007199254740993", "9223372036854775808", "18446744073709551615",
        "-9223372036854775808", "\"\"", "\"x\"", "\"1\"", "\"\\u00fc\""}) {
    SCOPED_TRACE(text);
    const json parsed = json::parse(text);
    const auto id = RequestId::from_json(parsed);
    ASSERT_TRUE(id);
    EXPECT_EQ(id->to_json().dump(), parsed.dump());
    EXPECT_EQ(id->to_json().type(), parsed.type());
    EXPECT_EQ(id->to_string(), parsed.dump());
  }
}

TEST(Classify, DecidesByShapeNotById) {
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"ping"})")),
            MessageKind::request);
  // A request whose id is malformed is still a request: it must never be taken as a response.
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":null,"method":"ping"})")),
            MessageKind::request);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","method":"ping"})")),
            MessageKind::notification);
  // `method` wins even when `result` is present too.
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"ping","result":{}})")),
            MessageKind::request);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"result":{}})")),
            MessageKind::response);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"error":{"code":1}})")),
            MessageKind::error_response);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"method":7})")), MessageKind::invalid);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1})")), MessageKind::invalid);
  EXPECT_EQ(classify(json::parse("42")), MessageKind::invalid);
  EXPECT_EQ(classify(json::parse("[]")), MessageKind::invalid);
}

TEST(Messages, HaveTheJsonRpcShape) {
  EXPECT_EQ(make_request(RequestId("a"), "ping"),
            json::parse(R"({"jsonrpc":"2.0","id":"a","method":"ping"})"));
  EXPECT_EQ(make_request(RequestId(std::uint64_t{3}), "tools/call", {{"name", "x"}}),
            json::parse(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}})"));
  EXPECT_EQ(make_notification("notifications/initialized"),
            json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_EQ(make_result(RequestId(std::uint64_t{0}), json::object()).dump(),
            R"({"id":0,"jsonrpc":"2.0","result":{}})");
  EXPECT_EQ(make_error(RequestId(""), -32601, "Method not found").dump(),
            R"({"error":{"code":-32601,"message":"Method not found"},"id":"","jsonrpc":"2.0"})");
}

}  // namespace
}  // namespace mcp
