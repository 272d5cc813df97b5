// The HTTP rules the mock server enforces on client requests (docs/http-mock-server.md, the
// POST, GET and DELETE checks): one table row per rule with the status the server answers and
// the implicit check it records when a client breaks the rule (once per case, Outcome::Broken).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "core/verdict.hpp"

namespace mcpping {

enum class HttpRuleId {
  BodyTooLarge,        // a POST body over the cap
  NotJson,             // a POST body that is not JSON
  NotMessage,          // JSON, but not one request, notification or response (nor a batch)
  BadBatch,            // 2025-03-26: a batch that is empty or holds a non-message
  BatchedInitialize,   // 2025-03-26: a batch holding initialize
  MixedBatch,          // 2025-03-26: responses batched with requests or notifications
  NoSessionHeader,     // no Mcp-Session-Id after initialize
  UnknownSession,      // an unknown or ended session id (a client re-initializes: no check)
  ProtocolVersion,     // MCP-Protocol-Version missing
  OtherVersion,        // MCP-Protocol-Version a version the server supports, not the negotiated
  UnsupportedVersion,  // MCP-Protocol-Version not a protocol version at all (not YYYY-MM-DD)
  PostAccept,          // a POST whose Accept lacks application/json or text/event-stream
  GetAccept,           // a GET whose Accept lacks text/event-stream
  ContentType,         // a POST without Content-Type, or whose media type is not JSON
  NoSessionParam,      // legacy: a POST /message without ?sessionId (no check)
  BeforeSession,       // a request other than initialize before any session exists
  GetBeforeSessionId,  // a GET without Mcp-Session-Id before the client acted on initialize
  // The 2026-07-28 binding (http_modern): the request metadata headers of a request POST.
  ModernVersionMissing,   // no MCP-Protocol-Version
  ModernVersionMismatch,  // MCP-Protocol-Version is not the body's _meta protocolVersion
  MethodMissing,          // no Mcp-Method
  MethodMismatch,         // Mcp-Method is not the body's method
  NameMissing,            // tools/call, resources/read, prompts/get: no Mcp-Name
  NameMismatch,           // Mcp-Name (decoded) is not the body's params.name or params.uri
  ModernGetOrDelete,      // a GET or DELETE: the binding has no GET stream and no sessions
  // Refused without a check: nothing of the client's to judge.
  CutShort,              // the connection ended inside the body: no message (nothing answered)
  TooManyStreams,        // more open streams and pending POSTs than the server serves
  GetStreamOpen,         // a second GET stream for a session
  UnknownLegacySession,  // legacy: a POST /message naming a session the server never issued
  MethodNotAllowed,      // another method on the endpoint
  NoSuchPath,            // any other path
  // Not refused: a 2026-07-28 server answers a method it lacks (-32601) with 404.
  UnknownMethod,
};

struct HttpRule {
  HttpRuleId id;
  // Whether the mock refuses the request (with `status`) or, as a lenient server, records the
  // check and goes on: only what it cannot process or attribute is refused.
  bool refuses;
  int status;  // what the mock answers when it refuses
  // The built-in check it records (core/check_registry.hpp: its level, kind and citations),
  // "" when breaking it records none.
  std::string_view check;
  std::string_view spec;      // which of the check's citations this rule breaks
  std::string_view expected;  // the check's Expected; "{max}" stands for the body cap
  // What breaking it records: broken, or degraded when the rule is met in a lesser way (a
  // protocol-version header the server supports but did not negotiate).
  Outcome outcome = Outcome::Broken;
  // The note of a request that breaks it (`message`: its body, discarded when no JSON), nullopt
  // when it does not; null when the rule is judged elsewhere: the session, batch, body and
  // stream rules (HttpSessions::check, the routes) and modern_header_problems.
  std::optional<std::string> (*broken)(const httplib::Request& req,
                                       const nlohmann::json& message) = nullptr;
};

// A request that broke a rule: why (for the transcript) and, when the rule refuses it, the
// JSON-RPC error body, if any.
struct Rejection {
  HttpRuleId rule;
  std::string note;
  nlohmann::json body = nullptr;
};

// A JSON-RPC error body without id: MCP says an HTTP error "MAY comprise a JSON-RPC error
// response that has no id".
nlohmann::json rpc_error(int code, const std::string& message);

// A response the HTTP host accepts must carry an id (null included) to be routed.
bool is_routable_response(const nlohmann::json& message);

// The row of `id`.
const HttpRule& http_rule(HttpRuleId id);

// The rules of `rules` (each with a predicate) that the request breaks, in that order.
std::vector<Rejection> rule_problems(const httplib::Request& req, const nlohmann::json& message,
                                     std::initializer_list<HttpRuleId> rules);

// The check's Actual text for a request that broke the rule: `note` says why it was refused,
// `body` is the request body (may be empty).
std::string rule_actual(const HttpRule& rule, const httplib::Request& req, const std::string& note,
                        const std::string& body);

}  // namespace mcpping
