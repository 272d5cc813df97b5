// A connection of the broken client to its server, over one transport.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace broken {

using nlohmann::json;

class Connection {
 public:
  virtual ~Connection() = default;
  // Sends a request and waits for its result; throws std::runtime_error on an error.
  virtual json request(const std::string& method, const json& params) = 0;
  virtual void notify(const std::string& method) = 0;
  virtual void close() = 0;
};

std::unique_ptr<Connection> connect_stdio(const std::vector<std::string>& argv);
std::unique_ptr<Connection> connect_streamable_http(const std::string& url,
                                                    const std::string& revision);
std::unique_ptr<Connection> connect_legacy_sse(const std::string& url);

}  // namespace broken
