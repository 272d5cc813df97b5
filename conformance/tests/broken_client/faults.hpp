// The defects mcp-broken-client can be told to have, one --fault each.
#pragma once

#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace broken {

using nlohmann::json;

inline const std::set<std::string> kFaults = {
    "no-pong",                  // never answers pings
    "method-not-found",         // answers every server request, ping included, with -32601
    "collision-as-result",      // matches frames to the pending call by id alone (stdio)
    "id-to-string",             // pongs with the id turned into a string
    "pong-malformed-ids",       // pongs whatever the id is (null, objects, ...)
    "sigpipe",                  // leaves SIGPIPE at its default: a failed pong write kills it
    "single-threaded",          // reads only while awaiting a response: idle pings wait (stdio)
    "ignore-unknown",           // stays silent on server requests it does not implement
    "reply-to-notification",    // answers a ping that has no id
    "no-session-on-pong",       // posts its pong without Mcp-Session-Id (HTTP)
    "pong-failure-fails-call",  // a pong POST that fails fails the awaited call (HTTP)
    "no-get-stream",            // never opens the GET listening stream (HTTP)
};

inline std::set<std::string>& active_faults() {
  static std::set<std::string> faults;
  return faults;
}
inline bool has(const char* fault) { return active_faults().count(fault) > 0; }

// The reply to a server request or notification, per the active faults; null for none.
inline json reply_to(const json& frame) {
  const std::string method = frame["method"].is_string() ? frame["method"].get<std::string>() : "";
  if (!frame.contains("id")) {
    if (method == "ping" && has("reply-to-notification")) {
      return {{"jsonrpc", "2.0"}, {"id", nullptr}, {"result", json::object()}};
    }
    return nullptr;
  }
  const json& id = frame["id"];
  const auto error = [&](int code, const char* message) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
  };
  if (method == "ping") {
    if (has("no-pong")) return nullptr;
    if (has("method-not-found")) return error(-32601, "Method not found");
    const bool valid_id = id.is_string() || id.is_number_integer();
    if (!valid_id && !has("pong-malformed-ids")) return nullptr;
    const json pong_id = has("id-to-string") && !id.is_string() ? json(id.dump()) : id;
    return {{"jsonrpc", "2.0"}, {"id", pong_id}, {"result", json::object()}};
  }
  if (has("ignore-unknown")) return nullptr;
  return error(-32601, "Method not found");
}

}  // namespace broken
