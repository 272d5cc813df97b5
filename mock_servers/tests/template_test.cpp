#include "template.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

const Captures kCaptures{
    {"call", Json::parse(R"({"id":1,"params":{"name":"echo","big":9007199254740993}})")},
    {"s", Json::parse(R"({"id":"1"})")}};

TEST(Template, WholeRefKeepsTheJsonType) {
  const auto frame =
      instantiate(Json::parse(R"({"jsonrpc":"2.0","id":"${call.id}","method":"ping"})"), kCaptures);
  EXPECT_TRUE(frame["id"].is_number_integer());
  EXPECT_EQ(frame.dump(), R"({"id":1,"jsonrpc":"2.0","method":"ping"})");
  EXPECT_TRUE(instantiate(Json("${s.id}"), kCaptures).is_string());
  EXPECT_EQ(instantiate(Json("${call.params.big}"), kCaptures).dump(), "9007199254740993");
  EXPECT_TRUE(instantiate(Json("${call.params}"), kCaptures).is_object());
}

TEST(Template, EmbeddedRefsBecomeText) {
  EXPECT_EQ(instantiate(Json("ping-${call.id}-${call.params.name}"), kCaptures),
            Json("ping-1-echo"));
  EXPECT_EQ(instantiate(Json("${s.id}!"), kCaptures), Json("1!"));
  EXPECT_EQ(instantiate(Json("no refs"), kCaptures), Json("no refs"));
}

// ping/colliding-id-other-type: "1" for a call whose id is 1.
TEST(Template, TextOfTurnsAnIdIntoItsStringForm) {
  const auto frame = instantiate(Json::parse(R"({"id":{"$text":"call.id"}})"), kCaptures);
  EXPECT_TRUE(frame["id"].is_string());
  EXPECT_EQ(frame["id"], Json("1"));
  EXPECT_EQ(instantiate(Json::parse(R"({"$text":"s.id"})"), kCaptures), Json("1"));
  EXPECT_THROW(instantiate(Json::parse(R"({"$text":"nothing.id"})"), kCaptures), TemplateError);
}

TEST(Template, RepeatIndex) {
  const Json tmpl = Json::parse(R"({"id":"b-${i}","n":"${i}","deep":[{"x":"${i}"}]})");
  const auto frame = instantiate(tmpl, kCaptures, 41);
  EXPECT_EQ(frame["id"], Json("b-41"));
  EXPECT_TRUE(frame["n"].is_number_integer());
  EXPECT_EQ(frame["n"].get<int>(), 41);
  EXPECT_EQ(frame["deep"][0]["x"].get<int>(), 41);
}

TEST(Template, MissingValuesThrow) {
  EXPECT_THROW(instantiate(Json("${call.params.nope}"), kCaptures), TemplateError);
  EXPECT_THROW(instantiate(Json("${other.id}"), kCaptures), TemplateError);
  EXPECT_THROW(instantiate(Json("${i}"), kCaptures), TemplateError);  // outside a repeat
  try {
    instantiate(Json("x ${call.nope}"), kCaptures);
    FAIL() << "no exception";
  } catch (const TemplateError& e) {
    EXPECT_STREQ(e.what(), "${call.nope}: no such member in the captured message");
  }
}

TEST(Template, NonStringValuesPassThrough) {
  const Json tmpl = Json::parse(R"({"a":[1,2.5,true,null],"b":{}})");
  EXPECT_TRUE(same_json(instantiate(tmpl, kCaptures), tmpl));
}

}  // namespace
}  // namespace mcpping
