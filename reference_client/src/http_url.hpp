// http(s) URLs as the HTTP transports need them: split into the origin that cpp-httplib
// connects to and the request target, and relative references resolved against a base
// (the legacy transport's `endpoint` event).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mcp::detail {

struct HttpUrl {
  std::string scheme;  // "http" or "https", lower case
  std::string host;    // lower case; an IPv6 literal keeps its brackets
  int port = 0;        // explicit, or the scheme's default
  std::string target;  // path and query, never empty ("/" at least); no fragment

  // scheme://host:port, the form httplib::Client accepts.
  std::string origin() const;
  std::string to_string() const { return origin() + target; }
  bool same_origin(const HttpUrl& other) const {
    return scheme == other.scheme && host == other.host && port == other.port;
  }
};

// nullopt unless `text` is an absolute http or https URL with a host.
std::optional<HttpUrl> parse_http_url(std::string_view text);

// Resolves a URI reference (RFC 3986 §5.2: absolute URL, //authority, /path, path, ?query)
// against `base`, removing dot segments. nullopt if the result is not an http(s) URL.
std::optional<HttpUrl> resolve_url(const HttpUrl& base, std::string_view reference);

}  // namespace mcp::detail
