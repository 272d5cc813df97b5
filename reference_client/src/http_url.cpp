#include "http_url.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace mcp::detail {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view strip_fragment(std::string_view text) { return text.substr(0, text.find('#')); }

// RFC 3986 §5.2.4, on a path without query.
std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string_view> out;
  const bool absolute = !path.empty() && path.front() == '/';
  std::size_t pos = absolute ? 1 : 0;
  bool trailing_slash = false;
  while (pos <= path.size()) {
    const std::size_t slash = path.find('/', pos);
    const std::string_view segment =
        path.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
    trailing_slash = false;
    if (segment == "..") {
      if (!out.empty()) out.pop_back();
      trailing_slash = true;
    } else if (segment == ".") {
      trailing_slash = true;
    } else {
      out.push_back(segment);
    }
    if (slash == std::string_view::npos) break;
    pos = slash + 1;
  }
  std::string result = absolute ? "/" : "";
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i > 0) result.push_back('/');
    result.append(out[i]);
  }
  if (trailing_slash && !result.empty() && result.back() != '/') result.push_back('/');
  return result;
}

std::string normalised_target(std::string_view path_and_query) {
  const std::size_t q = path_and_query.find('?');
  std::string path = remove_dot_segments(path_and_query.substr(0, q));
  if (path.empty() || path.front() != '/') path.insert(path.begin(), '/');
  if (q != std::string_view::npos) path.append(path_and_query.substr(q));
  return path;
}

}  // namespace

std::string HttpUrl::origin() const { return scheme + "://" + host + ":" + std::to_string(port); }

std::optional<HttpUrl> parse_http_url(std::string_view text) {
  text = strip_fragment(text);
  const std::size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return std::nullopt;
  HttpUrl url;
  url.scheme = lower(text.substr(0, scheme_end));
  if (url.scheme != "http" && url.scheme != "https") return std::nullopt;
  std::string_view rest = text.substr(scheme_end + 3);
  const std::size_t authority_end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, authority_end);
  const std::string_view path_and_query =
      authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);  // user info is not used
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    url.host = lower(authority.substr(0, close + 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port_text = after.substr(1);
    }
  } else {
    const std::size_t colon = authority.rfind(':');
    url.host = lower(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (url.host.empty() || url.host == "[]") return std::nullopt;
  url.port = url.scheme == "https" ? 443 : 80;
  if (!port_text.empty()) {
    if (port_text.size() > 5 || !std::all_of(port_text.begin(), port_text.end(),
                                             [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    url.port = std::stoi(std::string(port_text));
    if (url.port <= 0 || url.port > 65535) return std::nullopt;
  }
  url.target = normalised_target(path_and_query);
  return url;
}

std::optional<HttpUrl> resolve_url(const HttpUrl& base, std::string_view reference) {
  reference = strip_fragment(reference);
  // A reference with a scheme is absolute.
  const std::size_t colon = reference.find(':');
  const std::size_t first_delimiter = reference.find_first_of("/?");
  if (colon != std::string_view::npos && colon > 0 &&
      (first_delimiter == std::string_view::npos || colon < first_delimiter)) {
    return parse_http_url(reference);
  }
  if (reference.substr(0, 2) == "//")
    return parse_http_url(base.scheme + ":" + std::string(reference));

  HttpUrl url = base;
  const std::size_t base_query = base.target.find('?');
  const std::string_view base_path = std::string_view(base.target).substr(0, base_query);
  if (reference.empty()) {
    url.target = base.target;
  } else if (reference.front() == '/') {
    url.target = normalised_target(reference);
  } else if (reference.front() == '?') {
    url.target = std::string(base_path) + std::string(reference);
  } else {
    // Merge: the base path up to its last "/", then the reference.
    const std::size_t last_slash = base_path.rfind('/');
    std::string merged(base_path.substr(0, last_slash + 1));
    merged.append(reference);
    url.target = normalised_target(merged);
  }
  return url;
}

}  // namespace mcp::detail
