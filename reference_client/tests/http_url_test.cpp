#include "http_url.hpp"

#include <gtest/gtest.h>

namespace mcp::detail {
namespace {

TEST(HttpUrl, SplitsOriginAndTarget) {
  const auto url = parse_http_url("http://127.0.0.1:8123/mcp?x=1#frag");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->origin(), "http://127.0.0.1:8123");
  EXPECT_EQ(url->target, "/mcp?x=1");
  EXPECT_EQ(url->to_string(), "http://127.0.0.1:8123/mcp?x=1");
}

TEST(HttpUrl, DefaultsPortAndPathAndLowersSchemeAndHost) {
  const auto url = parse_http_url("HTTPS://Example.COM");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->scheme, "https");
  EXPECT_EQ(url->host, "example.com");
  EXPECT_EQ(url->port, 443);
  EXPECT_EQ(url->target, "/");
  EXPECT_EQ(parse_http_url("http://h?q")->target, "/?q");
}

TEST(HttpUrl, KeepsIpv6Brackets) {
  const auto url = parse_http_url("http://[::1]:9000/sse");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->host, "[::1]");
  EXPECT_EQ(url->port, 9000);
  EXPECT_EQ(url->origin(), "http://[::1]:9000");
}

TEST(HttpUrl, RejectsWhatIsNotAnAbsoluteHttpUrl) {
  for (const char* text : {"", "/mcp", "ftp://h/x", "http://", "http://:80/", "http://h:0/",
                           "http://h:65536/", "http://h:8a/", "http://[::1/", "mcp"}) {
    EXPECT_FALSE(parse_http_url(text)) << text;
  }
}

TEST(HttpUrl, ResolvesTheReferenceFormsOfAnEndpointEvent) {
  const auto base = parse_http_url("http://127.0.0.1:5000/a/sse?token=1");
  ASSERT_TRUE(base);
  EXPECT_EQ(resolve_url(*base, "/message?sessionId=abc")->to_string(),
            "http://127.0.0.1:5000/message?sessionId=abc");
  EXPECT_EQ(resolve_url(*base, "message?sessionId=abc")->to_string(),
            "http://127.0.0.1:5000/a/message?sessionId=abc");
  EXPECT_EQ(resolve_url(*base, "../b/./m")->to_string(), "http://127.0.0.1:5000/b/m");
  EXPECT_EQ(resolve_url(*base, "?s=2")->to_string(), "http://127.0.0.1:5000/a/sse?s=2");
  EXPECT_EQ(resolve_url(*base, "")->to_string(), "http://127.0.0.1:5000/a/sse?token=1");
  EXPECT_EQ(resolve_url(*base, "//other:81/m")->to_string(), "http://other:81/m");
  EXPECT_EQ(resolve_url(*base, "http://x:1/y")->to_string(), "http://x:1/y");
  EXPECT_EQ(resolve_url(*base, "/../../m")->to_string(), "http://127.0.0.1:5000/m");
  EXPECT_FALSE(resolve_url(*base, "mailto:x@y"));
}

TEST(HttpUrl, ComparesOrigins) {
  const auto a = parse_http_url("http://localhost:80/x");
  EXPECT_TRUE(a->same_origin(*parse_http_url("http://LOCALHOST/y")));
  EXPECT_FALSE(a->same_origin(*parse_http_url("https://localhost:80/x")));
  EXPECT_FALSE(a->same_origin(*parse_http_url("http://localhost:81/x")));
}

}  // namespace
}  // namespace mcp::detail
