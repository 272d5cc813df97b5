#include "core/pattern.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

const Json kToolsCall = Json::parse(
    R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}})");

TEST(SameJson, ComparesTypeCategories) {
  EXPECT_FALSE(same_json(Json(1), Json(1.0)));  // nlohmann's == says equal
  EXPECT_FALSE(same_json(Json(1), Json("1")));
  EXPECT_TRUE(same_json(Json::parse("1"), Json(1)));  // unsigned vs signed storage
  EXPECT_TRUE(same_json(Json(-1), Json::parse("-1")));
  EXPECT_FALSE(same_json(Json(-1), Json(18446744073709551615ULL)));
  EXPECT_TRUE(same_json(Json::parse("18446744073709551615"), Json(18446744073709551615ULL)));
  EXPECT_FALSE(same_json(Json::parse(R"({"a":[1]})"), Json::parse(R"({"a":[1.0]})")));
  EXPECT_TRUE(same_json(Json::parse(R"({"a":[1,"x"]})"), Json::parse(R"({"a":[1,"x"]})")));
  EXPECT_FALSE(same_json(Json::parse(R"({"a":1})"), Json::parse(R"({"a":1,"b":2})")));
  EXPECT_FALSE(same_json(Json(nullptr), Json(false)));
  EXPECT_TRUE(same_json(Json(""), Json("")));
}

TEST(Pattern, RepeatMatchesTheWholeRepetitionOnly) {
  const Json pattern = {{"$repeat", {"ab", 3}}};
  EXPECT_TRUE(matches(pattern, Json("ababab"), {}));
  EXPECT_FALSE(matches(pattern, Json("abababab"), {}));
  std::string why;
  EXPECT_FALSE(matches(pattern, Json(6), {}, &why));
  EXPECT_NE(why.find("written 3 times"), std::string::npos) << why;
  EXPECT_EQ(repeated_text(pattern), std::optional<std::string>("ababab"));
  EXPECT_FALSE(check_pattern(pattern));
  EXPECT_TRUE(check_pattern(Json::parse(R"({"$repeat": ["", 3]})")));
  EXPECT_TRUE(check_pattern(Json::parse(R"({"$repeat": ["ab", 0]})")));
  EXPECT_TRUE(check_pattern(Json::parse(R"({"$repeat": ["ab", 1048576]})")));  // over 1 MiB
}

TEST(Pattern, ExpandRepeatsWritesOutEveryMacro) {
  const Json args = {{"text", {{"$repeat", {"xy", 2}}}},
                     {"list", Json::array({Json{{"$repeat", {"z", 3}}}, 1})}};
  EXPECT_EQ(expand_repeats(args), Json::parse(R"({"text":"xyxy","list":["zzz",1]})"));
}

TEST(Pattern, ObjectsAllowExtraKeysArraysDoNot) {
  EXPECT_TRUE(matches(Json{{"method", "tools/call"}}, kToolsCall, {}));
  EXPECT_FALSE(matches(Json{{"method", "tools/list"}}, kToolsCall, {}));
  EXPECT_TRUE(matches(Json::parse(R"([1,2])"), Json::parse("[1,2]"), {}));
  EXPECT_FALSE(matches(Json::parse(R"([1])"), Json::parse("[1,2]"), {}));
}

TEST(Pattern, ScalarsAreTypeStrict) {
  EXPECT_TRUE(matches(Json{{"id", 7}}, kToolsCall, {}));
  EXPECT_FALSE(matches(Json{{"id", 7.0}}, kToolsCall, {}));
  EXPECT_FALSE(matches(Json{{"id", "7"}}, kToolsCall, {}));
}

// "params absent or an object": an $any_of that offers $absent matches a missing key too.
TEST(Pattern, AnAnyOfOfferingAbsentMatchesAMissingKey) {
  const auto form = Json::parse(R"({"params":{"$any_of":[{"$absent":true},{"$type":"object"}]}})");
  EXPECT_TRUE(matches(form, Json::parse(R"({"method":"ping"})"), {}));
  EXPECT_TRUE(matches(form, Json::parse(R"({"method":"ping","params":{}})"), {}));
  EXPECT_FALSE(matches(form, Json::parse(R"({"method":"ping","params":null})"), {}));
  EXPECT_FALSE(matches(form, Json::parse(R"({"method":"ping","params":[]})"), {}));
}

TEST(Pattern, SpecialKeys) {
  EXPECT_TRUE(matches(Json::parse(R"({"id":{"$any":true}})"), kToolsCall, {}));
  EXPECT_FALSE(matches(Json::parse(R"({"error":{"$any":true}})"), kToolsCall, {}));
  EXPECT_TRUE(matches(Json::parse(R"({"error":{"$absent":true}})"), kToolsCall, {}));
  EXPECT_FALSE(matches(Json::parse(R"({"id":{"$absent":true}})"), kToolsCall, {}));
  EXPECT_TRUE(matches(Json::parse(R"({"id":{"$type":"integer"}})"), kToolsCall, {}));
  EXPECT_TRUE(matches(Json::parse(R"({"id":{"$type":"number"}})"), kToolsCall, {}));
  EXPECT_FALSE(matches(Json::parse(R"({"id":{"$type":"string"}})"), kToolsCall, {}));
  EXPECT_FALSE(
      matches(Json::parse(R"({"id":{"$type":"integer"}})"), Json::parse(R"({"id":1.5})"), {}));
}

// A valid MCP request id is a string or an integer ("Requests MUST include a string or integer
// ID"): `{"$type": ["string", "integer"]}` says so in one pattern.
TEST(Pattern, TypeListMatchesAnyOfItsTypes) {
  const Json pattern = Json::parse(R"({"id":{"$type":["string","integer"]}})");
  EXPECT_TRUE(matches(pattern, Json::parse(R"({"id":"a"})"), {}));
  EXPECT_TRUE(matches(pattern, Json::parse(R"({"id":0})"), {}));
  std::string why;
  EXPECT_FALSE(matches(pattern, Json::parse(R"({"id":null})"), {}, &why));
  EXPECT_EQ(why, "/id: expected type string or integer, got null null");
  EXPECT_FALSE(matches(pattern, Json::parse(R"({"id":1.5})"), {}));
  EXPECT_FALSE(check_pattern(pattern));
  EXPECT_TRUE(check_pattern(Json::parse(R"({"$type":[]})")));
  EXPECT_TRUE(check_pattern(Json::parse(R"({"$type":["string","int"]})")));
}

TEST(Pattern, NotMatchesWhatItsPatternDoesNot) {
  const Captures captures{{"call", kToolsCall}};
  const Json pattern = Json::parse(R"({"id":{"$not":"${call.id}"}})");
  EXPECT_TRUE(matches(pattern, Json::parse(R"({"id":8})"), captures));
  EXPECT_TRUE(matches(pattern, Json::parse(R"({"id":"7"})"), captures));
  std::string why;
  EXPECT_FALSE(matches(pattern, Json::parse(R"({"id":7})"), captures, &why));
  EXPECT_NE(why.find("expected anything but"), std::string::npos);
  EXPECT_FALSE(matches(pattern, Json::parse(R"({"x":8})"), captures));  // a missing key fails
  ASSERT_EQ(collect_refs(pattern).size(), 1u);
  auto problem = check_pattern(Json::parse(R"({"id":{"$not":{"$type":"int"}}})"));
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->pointer, "/id/$not/$type");
}

// "The request ID MUST NOT have been previously used by the requestor within the same
// session": an id that is none of the captured ones.
TEST(Pattern, NotAnyOfExcludesEveryAlternative) {
  const Captures captures{{"call", kToolsCall}, {"first", Json::parse(R"({"id":"p-1"})")}};
  const Json pattern = Json::parse(R"({"id":{"$not":{"$any_of":["${call.id}","${first.id}"]}}})");
  EXPECT_TRUE(matches(pattern, Json::parse(R"({"id":"p-2"})"), captures));
  EXPECT_FALSE(matches(pattern, Json::parse(R"({"id":"p-1"})"), captures));
  EXPECT_FALSE(matches(pattern, Json::parse(R"({"id":7})"), captures));
  EXPECT_TRUE(matches(Json::parse(R"({"$any_of":[1,"a"]})"), Json("a"), {}));
  std::string why;
  EXPECT_FALSE(matches(Json::parse(R"({"$any_of":[1,"a"]})"), Json(2), {}, &why));
  EXPECT_EQ(why, R"(/: expected one of [1,"a"], got 2)");
  EXPECT_EQ(collect_refs(pattern).size(), 2u);
  EXPECT_TRUE(check_pattern(Json::parse(R"({"$any_of":[]})")));
  auto problem = check_pattern(Json::parse(R"({"$any_of":[1,{"$type":"x"}]})"));
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->pointer, "/$any_of/1/$type");
}

TEST(Pattern, ContainsMatchesSubstringsOfStringsOnly) {
  const Json pattern = {{"accept", {{"$contains", "text/event-stream"}}}};
  EXPECT_TRUE(matches(pattern, {{"accept", "application/json, text/event-stream"}}, {}));
  std::string why;
  EXPECT_FALSE(matches(pattern, {{"accept", "application/json"}}, {}, &why));
  EXPECT_EQ(
      why, "/accept: expected a string containing \"text/event-stream\", got \"application/json\"");
  EXPECT_FALSE(matches(pattern, {{"accept", 1}}, {}));
  ASSERT_TRUE(check_pattern(Json{{"$contains", 1}}));
  EXPECT_EQ(check_pattern(Json{{"$contains", 1}})->reason, "$contains takes a string");
}

TEST(Pattern, RefsKeepTheCapturedType) {
  const Captures captures{{"call", kToolsCall}};
  EXPECT_TRUE(matches(Json::parse(R"({"id":"${call.id}"})"), Json::parse(R"({"id":7})"), captures));
  EXPECT_FALSE(
      matches(Json::parse(R"({"id":"${call.id}"})"), Json::parse(R"({"id":"7"})"), captures));
  EXPECT_TRUE(
      matches(Json::parse(R"({"id":{"$ref":"call.id"}})"), Json::parse(R"({"id":7})"), captures));
  EXPECT_TRUE(matches(Json::parse(R"({"text":"got ${call.params.arguments.text}"})"),
                      Json::parse(R"({"text":"got a"})"), captures));
  std::string why;
  EXPECT_FALSE(matches(Json::parse(R"({"id":"${nope.id}"})"), kToolsCall, captures, &why));
  EXPECT_NE(why.find("nope.id"), std::string::npos);
}

TEST(Pattern, ExplainsTheMismatch) {
  std::string why;
  EXPECT_FALSE(matches(Json::parse(R"({"params":{"name":"other"}})"), kToolsCall, {}, &why));
  EXPECT_EQ(why, R"(/params/name: expected "other", got "echo")");
}

TEST(Pattern, ResolveRefWalksMembersAndIndexes) {
  const Captures captures{{"call", kToolsCall}, {"list", Json::parse(R"({"a":[10,{"b":true}]})")}};
  EXPECT_EQ(resolve_ref("call.params.name", captures), Json("echo"));
  EXPECT_EQ(resolve_ref("list.a.1.b", captures), Json(true));
  EXPECT_FALSE(resolve_ref("list.a.5", captures));
  EXPECT_FALSE(resolve_ref("call.missing", captures));
  EXPECT_FALSE(resolve_ref("other", captures));
  EXPECT_TRUE(same_json(*resolve_ref("call", captures), kToolsCall));
}

TEST(Pattern, CheckPatternRejectsMalformedSpecials) {
  EXPECT_FALSE(check_pattern(Json::parse(R"({"id":{"$type":"integer"},"x":[{"$any":true}]})")));
  auto p = check_pattern(Json::parse(R"({"id":{"$type":"int"}})"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pointer, "/id/$type");
  p = check_pattern(Json::parse(R"({"a":[{"$any":true,"b":1}]})"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pointer, "/a/0");
  p = check_pattern(Json::parse(R"({"$regex":"x"})"));
  ASSERT_TRUE(p);
  EXPECT_NE(p->reason.find("unknown special key"), std::string::npos);
  EXPECT_TRUE(check_pattern(Json::parse(R"({"$absent":false})")));
}

TEST(Pattern, CollectsRefsWithPointers) {
  const auto refs =
      collect_refs(Json::parse(R"({"id":"${call.id}","p":["x ${a.b} ${c}"],"r":{"$ref":"d.e"}})"));
  ASSERT_EQ(refs.size(), 4u);
  EXPECT_EQ(refs[0].pointer, "/id");
  EXPECT_EQ(refs[0].ref, "call.id");
  EXPECT_EQ(refs[1].pointer, "/p/0");
  EXPECT_EQ(refs[2].ref, "c");
  EXPECT_EQ(refs[3].pointer, "/r/$ref");
  EXPECT_EQ(whole_ref("${a.b}"), "a.b");
  EXPECT_FALSE(whole_ref("x${a.b}"));
  EXPECT_EQ(ref_root("a.b.c"), "a");
}

// Found by fuzz/pattern_fuzz: the size check multiplied text length by count, which wraps
// around for a huge count, so a $repeat of 2 "bytes" was accepted and writing it out never
// ended.
TEST(Pattern, RegressionRepeatWhoseSizeWrapsAroundIsRefused) {
  EXPECT_TRUE(check_repeat(Json::parse(R"(["abc", 6148914691236517206])")));
  EXPECT_FALSE(repeated_text(Json::parse(R"({"$repeat": ["abc", 6148914691236517206]})")));
  EXPECT_FALSE(check_repeat(Json::parse(R"(["abc", 349525])")));  // 1048575 bytes
}

// Found by fuzz/pattern_fuzz: an array index too large for size_t threw std::out_of_range
// out of the matcher instead of naming nothing.
TEST(Pattern, RegressionIndexBeyondSizeTNamesNothing) {
  const Captures captures{{"c", Json::array({1})}};
  EXPECT_FALSE(resolve_ref("c.99999999999999999999999", captures));
  std::string why;
  EXPECT_FALSE(matches(Json("${c.99999999999999999999999}"), Json(1), captures, &why));
  EXPECT_NE(why.find("is not captured"), std::string::npos) << why;
}

}  // namespace
}  // namespace mcpping
