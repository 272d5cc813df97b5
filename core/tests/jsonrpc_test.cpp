#include "core/jsonrpc.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

const Json kPong = Json::parse(R"({"jsonrpc":"2.0","id":"p","result":{}})");
const Json kCall = Json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})");
const Json kNote = Json::parse(R"({"jsonrpc":"2.0","method":"notifications/progress"})");

TEST(JsonRpc, ShapesAreToldApartByMethodAndId) {
  EXPECT_TRUE(is_request(kCall));
  EXPECT_TRUE(is_notification(kNote));
  EXPECT_TRUE(is_response(kPong));
  EXPECT_FALSE(is_response(kCall));
  EXPECT_EQ(method_of(kCall), "tools/call");
  EXPECT_EQ(method_of(kPong), "");
}

// The 2025-03-26 forms: requests and/or notifications, or responses; never initialize.
TEST(JsonRpc, BatchProblemsNameWhatIsWrong) {
  EXPECT_FALSE(batch_problem(Json::array({kPong, kPong, kPong})));
  EXPECT_FALSE(batch_problem(Json::array({kCall, kNote})));
  EXPECT_EQ(batch_problem(kPong), "not an array");
  EXPECT_EQ(batch_problem(Json::array()), "an empty array");
  EXPECT_EQ(batch_problem(Json::array({kPong, 1})),
            "an element that is not a request, notification or response");
  EXPECT_EQ(batch_problem(Json::array({kPong, kNote})),
            "responses mixed with requests or notifications in one batch");
  EXPECT_FALSE(batch_problem(Json::array({kPong, kNote}), /*mixed_ok=*/true));
  const auto initialize = Json::parse(R"({"jsonrpc":"2.0","id":0,"method":"initialize"})");
  EXPECT_EQ(batch_problem(Json::array({initialize, kNote})), kBatchedInitialize);
}

}  // namespace
}  // namespace mcpping
