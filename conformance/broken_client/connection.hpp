// A connection of the broken client to its server, over one transport.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace broken {

using nlohmann::json;

using Timeout = std::chrono::milliseconds;
// How long a connection waits for the server to answer or to accept what it writes.
inline constexpr auto kWait = std::chrono::seconds(5);

// The client gave up waiting for request `id`.
struct TimedOut : std::runtime_error {
  TimedOut(int request_id, Timeout after)
      : std::runtime_error("request timed out after " + std::to_string(after.count()) + " ms"),
        id(request_id) {}
  int id;
};

class Connection {
 public:
  virtual ~Connection() = default;
  // Sends a request and waits up to `timeout` (none: the transport's own bound) for its
  // result; throws TimedOut, or std::runtime_error on an error.
  virtual json request(const std::string& method, const json& params,
                       std::optional<Timeout> timeout) = 0;
  virtual void notify(const std::string& method, const json& params) = 0;
  virtual void close() = 0;
};

// "http://host:port/path" split into origin and path; throws on anything else. (Not
// std::regex: GCC 12 warns inside <regex> in sanitizer builds, and warnings are errors.)
inline std::pair<std::string, std::string> split_url(const std::string& url) {
  const std::string scheme = "http://";
  const auto slash = url.find('/', scheme.size());
  if (url.rfind(scheme, 0) != 0 || slash == std::string::npos || slash == scheme.size())
    throw std::runtime_error("bad URL " + url);
  return {url.substr(0, slash), url.substr(slash)};
}

std::unique_ptr<Connection> connect_stdio(const std::vector<std::string>& argv);
std::unique_ptr<Connection> connect_streamable_http(const std::string& url,
                                                    const std::string& revision);
std::unique_ptr<Connection> connect_legacy_sse(const std::string& url);

}  // namespace broken
