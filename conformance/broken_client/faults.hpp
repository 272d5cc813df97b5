// The defects mcp-broken-client can be told to have, one --fault each.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace broken {

using nlohmann::json;

inline const std::set<std::string> kFaults = {
    "no-pong",                    // never answers pings
    "method-not-found",           // answers every server request, ping included, with -32601
    "collision-as-result",        // matches frames to the pending call by id alone (stdio)
    "id-to-string",               // pongs with the id turned into a string
    "pong-malformed-ids",         // pongs whatever the id is (null, objects, ...); a fractional
                                  // id comes back as its integer part (read into an int64)
    "sigpipe",                    // leaves SIGPIPE at its default: a failed pong write kills it
    "single-threaded",            // reads only while awaiting a response: idle pings wait (stdio)
    "ignore-unknown",             // stays silent on server requests it does not implement
    "reply-to-notification",      // answers a ping that has no id
    "no-session-on-pong",         // posts its pong without Mcp-Session-Id (HTTP)
    "pong-failure-fails-call",    // a pong POST that fails fails the awaited call (HTTP)
    "no-get-stream",              // never opens the GET listening stream (HTTP)
    "no-initialized",             // never sends notifications/initialized
    "needs-event-message",        // drops SSE events without an explicit `event: message` (HTTP)
    "early-get",                  // probes the GET stream before initialize (HTTP)
    "no-stderr-drain",            // pipes the server's stderr and never reads it (stdio)
    "no-initialize",              // connect fails without sending initialize
    "no-client-info",             // sends initialize without clientInfo (schema-invalid)
    "slow-start",                 // sends initialize 5.5 s after connect: later than expect_ms
    "refuses-requests",           // after connect, every request fails without being sent
    "stray-frame-fails-call",     // any server message fails the request in flight
    "idle-request-kills-reader",  // a server request while nothing is awaited ends the reader
    "strict-initialize",          // a server request before the initialize result fails connect
    "ping-rejects-empty-result",  // its own ping fails on the empty result {}
    "ping-ignores-errors",        // its own ping reports success on an error answer
    "ping-error-closes",          // an error answer to its own ping closes the connection
    "ping-params-null",           // sends its own ping with "params": null
    "pong-404-ends-session",      // a 404 to a pong POST ends the session for good (HTTP, SSE)
    "ignores-404",                // keeps using a session the server answered 404 for (HTTP)
    "pong-text-content-type",     // posts its pong as Content-Type: text/plain (HTTP)
    "pong-without-content-type",  // posts its pong without Content-Type (HTTP)
    "version-header-not-negotiated",  // MCP-Protocol-Version: a supported, not negotiated one
    "pong-unsupported-version",       // posts its pong with MCP-Protocol-Version: 1999-01-01
    "batch-pongs",                    // answers pings read together with one JSON array
    "pong-without-headers",  // posts its pong without Accept and MCP-Protocol-Version (HTTP)
    "sse-only-responses",    // takes responses only from SSE streams, not JSON bodies (HTTP)
    "ping-json-only",        // reads its own ping's answer from a JSON body only (HTTP)
    "pong-to-stream-url",    // posts replies to the SSE stream's URL, not the endpoint (legacy)
    "crash-on-close",        // aborts when told to close
    "reuses-ping-id",        // sends every ping with id 1, its initialize request's id
    "pong-without-jsonrpc",  // pongs without the jsonrpc member
    "late-reply-to-notification",    // answers a ping that has no id, 600 ms later
    "pong-with-members",             // pongs with a non-empty result
    "unknown-method-wrong-code",     // answers unknown server requests -32603, not -32601
    "cancel-fails-call",             // a notifications/cancelled it cannot match fails the call
    "no-request-timeout",            // ignores a step's timeout_ms: waits 30 s for any answer
    "no-cancel-on-timeout",          // gives up on a request without notifications/cancelled
    "cancels-unknown-request",       // its notifications/cancelled names an id it never sent
    "timeout-breaks-session",        // after giving up on a request, sends every later one
                                     // and fails it whatever the answer
    "timeout-ends-session",          // after giving up on a request, considers the connection
                                     // stale: later requests fail unsent (the ping page's MAY)
    "late-response-breaks-session",  // an answer to a request it gave up on stops its reader
    "drops-batches",                 // ignores a JSON-RPC batch (an array) from the server
    "splices-pong",      // stdio: writes a large request in two parts without its write lock, and
                         // the reader's pong lands between them
    "serial-calls",      // runs concurrent calls one after the other
    "one-pending-slot",  // one "current request": a new one takes it from the call in flight
    "no-resume",         // a POST stream that ends before the response fails it
    "resume-without-last-event-id",  // resumes a broken POST stream, or reconnects the GET
                                     // stream, with a GET lacking the header
    "ignores-retry",          // resumes a broken POST stream, or reconnects the GET stream, at
                              // once, whatever `retry:` says
    "get-no-reconnect",       // does not reconnect the GET stream the server closed (a MAY)
    "deaf-after-reconnect",   // reconnects the GET stream, then drops the requests it carries
    "legacy-replies",         // modern session: answers server requests as a legacy client (pong);
                              // with method-not-found, with -32601
    "modern-request-aborts",  // modern session: a server request aborts the process
    "modern-null-id-error",   // modern session: answers server requests with an error, id null
    "skips-discover",         // modern session: starts with its request, no server/discover probe
    // The 2026-07-28 Streamable HTTP binding's request metadata headers, on request POSTs:
    "modern-no-version-header",  // no MCP-Protocol-Version
    "modern-version-mismatch",   // MCP-Protocol-Version 2025-11-25, _meta says 2026-07-28
    "modern-no-method-header",   // no Mcp-Method
    "modern-method-mismatch",    // Mcp-Method upper-cased (header values are case-sensitive)
    "modern-no-name-header",     // no Mcp-Name on tools/call
    "modern-name-bare-base64",   // Mcp-Name as bare Base64, without the =?base64?...?= sentinel
    "modern-get-stream",         // opens a GET stream in a modern session (HTTP)
    // Not a defect: what widely used libraries do, which the mock must serve as a server would.
    "lists-tools-first",  // sends tools/list inside connect and before every call_tool
};

inline std::set<std::string>& active_faults() {
  static std::set<std::string> faults;
  return faults;
}
inline bool has(const char* fault) { return active_faults().count(fault) > 0; }

// A modern session (2026-07-28): no initialize, _meta on every request, no responses.
inline bool& modern_session() {
  static bool modern = false;
  return modern;
}

// A request's params in the session: in a modern one, with the per-request _meta fields.
inline json request_params(json params, const std::string& version) {
  if (!modern_session()) return params;
  if (!params.is_object()) params = json::object();
  params["_meta"]["io.modelcontextprotocol/protocolVersion"] = version;
  params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json::object();
  params["_meta"]["io.modelcontextprotocol/clientInfo"] = {{"name", "mcp-broken-client"},
                                                           {"version", "1"}};
  return params;
}

// The messages in one frame the server wrote: the object, or the elements of a JSON-RPC
// batch (2025-03-26), which drops-batches ignores. Anything else holds none.
inline std::vector<json> messages_in(const std::string& text) {
  const json frame = json::parse(text, nullptr, false);
  if (frame.is_object()) return {frame};
  std::vector<json> out;
  if (frame.is_array() && !has("drops-batches")) {
    for (const auto& message : frame)
      if (message.is_object()) out.push_back(message);
  }
  return out;
}

// The id of its next request: reuses-ping-id sends every ping as id 1.
inline int next_request_id(const std::string& method, std::atomic<int>& next_id) {
  if (method == "ping" && has("reuses-ping-id")) return 1;
  return next_id++;
}

// What a server message does to the request in flight (`pending`: its method, "" for none)
// under the active faults: the failure that request gets, or nothing.
inline std::optional<std::string> breaks_pending(const json& frame, const std::string& pending) {
  if (pending.empty() || !frame.contains("method")) return std::nullopt;
  const std::string method = frame["method"].is_string() ? frame["method"].get<std::string>() : "?";
  if (pending == "initialize") {
    if (has("strict-initialize") && frame.contains("id"))
      return "protocol error: " + method + " before the initialize result";
    return std::nullopt;
  }
  if (has("stray-frame-fails-call")) return "unexpected " + method + " while awaiting " + pending;
  if (has("cancel-fails-call") && method == "notifications/cancelled")
    return "cancellation of a request not in progress while awaiting " + pending;
  return std::nullopt;
}

// idle-request-kills-reader: a server request while nothing is awaited ends the reader.
inline bool kills_idle_reader(const json& frame, const std::string& pending) {
  return pending.empty() && has("idle-request-kills-reader") && frame.contains("method") &&
         frame.contains("id");
}

// The reply to a server request or notification, per the active faults; null for none.
inline json reply_to(const json& frame) {
  const std::string method = frame["method"].is_string() ? frame["method"].get<std::string>() : "";
  // A modern client writes no responses; the faults break that, or die of the request.
  if (modern_session() && frame.contains("id")) {
    if (has("modern-request-aborts")) std::abort();
    if (has("modern-null-id-error"))
      return {{"jsonrpc", "2.0"},
              {"id", nullptr},
              {"error", {{"code", -32601}, {"message", "Method not found"}}}};
    if (!has("legacy-replies") && !has("method-not-found")) return nullptr;
  }
  if (!frame.contains("id")) {
    if (method == "ping" && (has("reply-to-notification") || has("late-reply-to-notification"))) {
      // The defect is the delay itself: the reply comes after the server's quiet window.
      if (has("late-reply-to-notification"))
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
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
    json pong_id = has("id-to-string") && !id.is_string() ? json(id.dump()) : id;
    if (has("pong-malformed-ids") && id.is_number_float())
      pong_id = static_cast<int>(id.get<double>());
    json pong{{"jsonrpc", "2.0"}, {"id", pong_id}, {"result", json::object()}};
    if (has("pong-without-jsonrpc")) pong.erase("jsonrpc");
    if (has("pong-with-members")) pong["result"]["alive"] = true;
    return pong;
  }
  if (has("ignore-unknown")) return nullptr;
  if (has("unknown-method-wrong-code")) return error(-32603, "Internal error");
  return error(-32601, "Method not found");
}

}  // namespace broken
