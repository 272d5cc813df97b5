#include "modern_http_headers.hpp"

#include <gtest/gtest.h>

namespace mcp::detail {
namespace {

using nlohmann::json;

std::string header(const httplib::Headers& headers, const std::string& name) {
  const auto it = headers.find(name);
  return it == headers.end() ? std::string("<none>") : it->second;
}

TEST(ModernHttpHeaders, HeaderSafeValuesArePlain) {
  EXPECT_EQ(encode_header_value("echo"), "echo");
  EXPECT_EQ(encode_header_value("us-west1"), "us-west1");
  EXPECT_EQ(encode_header_value("file:///projects/myapp/config.json"),
            "file:///projects/myapp/config.json");
  EXPECT_EQ(encode_header_value("a b"), "a b");  // inner spaces are fine
}

TEST(ModernHttpHeaders, OtherValuesUseTheBase64SentinelAsTheSpecsExamples) {
  EXPECT_EQ(encode_header_value("Hello, \xE4\xB8\x96\xE7\x95\x8C"),
            "=?base64?SGVsbG8sIOS4lueVjA==?=");
  EXPECT_EQ(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
  EXPECT_EQ(encode_header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
  EXPECT_EQ(encode_header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
  EXPECT_EQ(encode_header_value("tab\there"), "=?base64?dGFiCWhlcmU=?=");
}

TEST(ModernHttpHeaders, APostCarriesTheVersionTheMethodAndNoSession) {
  HttpOptions options;
  options.headers = {{"Authorization", "Bearer t"}};
  const auto h = modern_post_headers(
      options, "2026-07-28", json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "server/discover"}});
  EXPECT_EQ(header(h, "MCP-Protocol-Version"), "2026-07-28");
  EXPECT_EQ(header(h, "Mcp-Method"), "server/discover");
  EXPECT_EQ(header(h, "Mcp-Name"), "<none>");
  EXPECT_EQ(header(h, "Mcp-Session-Id"), "<none>");
  EXPECT_EQ(header(h, "Accept"), "application/json, text/event-stream");
  EXPECT_EQ(header(h, "Content-Type"), "application/json");
  EXPECT_EQ(header(h, "Authorization"), "Bearer t");
}

TEST(ModernHttpHeaders, McpNameMirrorsTheNameOrUriOfThreeMethods) {
  const HttpOptions options;
  const auto name_of = [&](const std::string& method, const json& params) {
    return header(modern_post_headers(
                      options, "2026-07-28",
                      json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}),
                  "Mcp-Name");
  };
  EXPECT_EQ(name_of("tools/call", {{"name", "echo"}}), "echo");
  EXPECT_EQ(name_of("prompts/get", {{"name", "greet"}}), "greet");
  EXPECT_EQ(name_of("resources/read", {{"uri", "file:///a b"}}), "file:///a b");
  EXPECT_EQ(name_of("tools/call", {{"name", " x"}}), "=?base64?IHg=?=");
  EXPECT_EQ(name_of("tools/list", {{"name", "echo"}}), "<none>");
  EXPECT_EQ(name_of("tools/call", {{"name", 7}}), "<none>");
}

}  // namespace
}  // namespace mcp::detail
