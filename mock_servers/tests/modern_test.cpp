#include "engine/modern.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

Json request_with_meta(const Json& meta) {
  return Json{
      {"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}, {"params", {{"_meta", meta}}}};
}

TEST(Modern, DiscoverResultListsTheModernVersionsCapabilitiesAndIdentity) {
  ServerDefaults d;
  d.capabilities = {{"tools", Json::object()}};
  d.server_info = {{"name", "mock"}, {"version", "1"}};
  const auto result = discover_result(d);
  EXPECT_EQ(result["supportedVersions"], Json::array({"2026-07-28"}));
  EXPECT_EQ(result["capabilities"], d.capabilities);
  EXPECT_EQ(result["resultType"], Json("complete"));
  EXPECT_EQ(result["_meta"][kMetaServerInfo], d.server_info);
}

// The 2026-07-28 schema requires ttlMs and cacheScope in a DiscoverResult; without them a
// client that decodes the result by its schema (the Rust SDK, rmcp) rejected the discovery,
// and ping/modern-session failed before its ping.
TEST(Modern, RegressionTheDiscoverResultLackedTtlMsAndCacheScope) {
  const auto result = discover_result(ServerDefaults{});
  EXPECT_EQ(result["ttlMs"], Json(0));
  EXPECT_EQ(result["cacheScope"], Json("private"));
  EXPECT_EQ(cacheable_result(Json{{"tools", Json::array()}})["tools"], Json::array());
}

TEST(Modern, ACompleteMetaHasNoProblems) {
  const auto request = request_with_meta({{kMetaProtocolVersion, "2026-07-28"},
                                          {kMetaClientCapabilities, Json::object()},
                                          {kMetaClientInfo, {{"name", "c"}, {"version", "1"}}}});
  EXPECT_TRUE(meta_problems(request).empty());
  EXPECT_FALSE(lacks_client_info(request));
  EXPECT_EQ(meta_protocol_version(request), "2026-07-28");
}

TEST(Modern, EachMissingOrMalformedRequiredFieldIsNamed) {
  EXPECT_EQ(meta_problems(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}),
            std::vector<std::string>{"no params._meta"});
  const auto problems = meta_problems(
      request_with_meta({{kMetaProtocolVersion, 2026}, {kMetaClientCapabilities, 1}}));
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("not a string"), std::string::npos);
  EXPECT_NE(problems[1].find("not an object"), std::string::npos);
  EXPECT_TRUE(lacks_client_info(request_with_meta({{kMetaProtocolVersion, "2026-07-28"}})));
}

// Regression (modern:request-meta, MUST, broke on a present but unsupported version: the
// sentence requires the field, "fields marked as required MUST be included on every request";
// the version's choice is the client's SHOULD after UnsupportedProtocolVersionError).
TEST(Modern, RegressionAnUnsupportedButPresentVersionBrokeRequestMeta) {
  const auto old = request_with_meta(
      {{kMetaProtocolVersion, "2025-11-25"}, {kMetaClientCapabilities, Json::object()}});
  EXPECT_TRUE(meta_problems(old).empty());
  ASSERT_TRUE(unsupported_meta_version(old));
  EXPECT_NE(unsupported_meta_version(old)->find("not a version the server supports"),
            std::string::npos);
  EXPECT_FALSE(unsupported_meta_version(request_with_meta(
      {{kMetaProtocolVersion, "2026-07-28"}, {kMetaClientCapabilities, Json::object()}})));
}

TEST(Modern, AModernResultKeepsItsMembers) {
  ServerDefaults d;
  d.server_info = {{"name", "mock"}};
  const auto result = modern_result(Json{{"tools", Json::array()}}, d);
  EXPECT_EQ(result["tools"], Json::array());
  EXPECT_EQ(result["resultType"], Json("complete"));
  EXPECT_EQ(result["_meta"][kMetaServerInfo], d.server_info);
}

}  // namespace
}  // namespace mcpping
