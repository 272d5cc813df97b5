#include "id_match.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

TEST(IdMatch, StrictRoundedLooseOrNone) {
  EXPECT_EQ(match_id(Json(5), Json(5)), IdMatch::Strict);
  EXPECT_EQ(match_id(Json(5), Json("5")), IdMatch::Loose);
  EXPECT_EQ(match_id(Json(9007199254740993LL), Json(9007199254740992.0)), IdMatch::Rounded);
  EXPECT_EQ(match_id(Json(5), Json(6)), IdMatch::None);
  EXPECT_EQ(match_id(Json(nullptr), Json(nullptr)), IdMatch::Strict);
}

// Regression (a pong echoing 42 as 42.0 failed as "id type changed"): JSON has one number
// type, and JSON-RPC asks for "the same as the value of the id member". A string stays apart.
TEST(IdMatch, RegressionAnIntegerIdEchoedAsAFloatWasATypeChange) {
  EXPECT_EQ(match_id(Json(42), Json(42.0)), IdMatch::Strict);
  EXPECT_EQ(match_id(Json(0), Json(-0.0)), IdMatch::Strict);
  EXPECT_EQ(match_id(Json(42), Json("42")), IdMatch::Loose);
  EXPECT_EQ(match_id(Json(-1), Json(18446744073709551615ULL)), IdMatch::None);
}

// Ids of every shape the catalogue sends or a client echoes.
const std::vector<Json> kIds = {
    Json(5),
    Json("5"),
    Json(5.0),
    Json(6),
    Json(0),
    Json(-1),
    Json(""),
    Json("srv-ping-1"),
    Json(1.5),
    Json("1.5"),
    Json(true),
    Json("true"),
    Json(false),
    Json(nullptr),
    Json("é"),
    Json(9007199254740993LL),
    Json(9007199254740992.0),
    Json::array({1}),
    Json::object({{"a", 1}}),
    Json("[1]"),
};

// The index never hides a match: every id match_id() ties to a given one is a candidate.
TEST(IdIndex, EveryMatchIsACandidate) {
  IdIndex index;
  for (std::size_t i = 0; i < kIds.size(); ++i) index.add(kIds[i], i);
  for (const auto& sent : kIds) {
    const auto candidates = index.candidates(sent);
    for (std::size_t i = 0; i < kIds.size(); ++i) {
      if (match_id(sent, kIds[i]) == IdMatch::None) continue;
      EXPECT_NE(std::find(candidates.begin(), candidates.end(), i), candidates.end())
          << sent.dump() << " misses " << kIds[i].dump();
    }
  }
}

TEST(IdIndex, CandidatesAreFewAscendingAndUnique) {
  IdIndex index;
  for (std::size_t i = 0; i < 1000; ++i) index.add(Json("burst-" + std::to_string(i)), i);
  index.add(Json(7), 1000);
  index.add(Json("7"), 1001);
  index.add(Json(7), 1002);
  EXPECT_EQ(index.candidates(Json("burst-42")), (std::vector<std::size_t>{42}));
  EXPECT_EQ(index.candidates(Json(7)), (std::vector<std::size_t>{1000, 1001, 1002}));
  EXPECT_TRUE(index.candidates(Json("missing")).empty());
}

// Found by fuzz/pattern_fuzz: match_id() ties -0.0 to 0, but the index keyed them apart,
// so a response with id -0.0 to a request with id 0 (or the reverse) was never looked at.
TEST(IdIndex, RegressionNegativeZeroIsOfferedForZero) {
  ASSERT_NE(match_id(Json(0), Json(-0.0)), IdMatch::None);
  IdIndex index;
  index.add(Json(0), 0);
  index.add(Json(-0.0), 1);
  EXPECT_EQ(index.candidates(Json(-0.0)), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(index.candidates(Json(0)), (std::vector<std::size_t>{0, 1}));
}

// Found by fuzz/pattern_fuzz: nlohmann::json's == casts an unsigned integer to a signed one,
// so match_id() tied 18446744073709551613 (2^64-3) to -3 as a loose match.
TEST(IdMatch, RegressionAHugeUnsignedIdIsNotTheNegativeIdOfItsBits) {
  const Json huge = Json::parse("18446744073709551613");
  ASSERT_TRUE(huge.is_number_unsigned());
  EXPECT_EQ(match_id(huge, Json(-3)), IdMatch::None);
  EXPECT_EQ(match_id(Json(-3), huge), IdMatch::None);
  EXPECT_EQ(match_id(Json(3), Json::parse("3")), IdMatch::Strict);
}

}  // namespace
}  // namespace mcpping
