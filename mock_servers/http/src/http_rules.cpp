#include "http_rules.hpp"

#include <algorithm>
#include <cctype>

#include "core/jsonrpc.hpp"
#include "core/text.hpp"

namespace mcpping {

namespace {

constexpr std::string_view kValidMessage =
    "every POST body is one JSON-RPC request, notification or response";
constexpr std::string_view kValidBatch =
    "every POST body is one JSON-RPC request, notification or response, or (2025-03-26) a batch "
    "of requests and notifications, or of responses";
constexpr std::string_view kProtocolVersion =
    "every request after initialize carries MCP-Protocol-Version, with the negotiated version";
constexpr std::string_view kModernVersion =
    "every request POST carries MCP-Protocol-Version, equal to its _meta "
    "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view kMcpMethod =
    "every request POST carries Mcp-Method, equal to the request's method";
constexpr std::string_view kMcpName =
    "a tools/call, resources/read or prompts/get POST carries Mcp-Name, equal (after Base64 "
    "decoding) to its params.name or params.uri";

using Note = std::optional<std::string>;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool accepts(const httplib::Request& req, const char* type) {
  return lower(req.get_header_value("Accept")).find(type) != std::string::npos;
}

Note post_accept(const httplib::Request& req, const nlohmann::json&) {
  if (accepts(req, "application/json") && accepts(req, "text/event-stream")) return std::nullopt;
  return "Accept does not list application/json and text/event-stream";
}

Note get_accept(const httplib::Request& req, const nlohmann::json&) {
  if (accepts(req, "text/event-stream")) return std::nullopt;
  return "Accept does not list text/event-stream";
}

Note content_type(const httplib::Request& req, const nlohmann::json&) {
  auto type = lower(req.get_header_value("Content-Type"));
  type = type.substr(0, type.find(';'));
  const auto first = type.find_first_not_of(" \t");
  const auto last = type.find_last_not_of(" \t");
  if (first != std::string::npos && type.substr(first, last - first + 1) == "application/json")
    return std::nullopt;
  return req.has_header("Content-Type") ? "Content-Type is not application/json"
                                        : "no Content-Type";
}

// Lenient: responses batched with requests or notifications fit none of the three forms, but
// each can be processed.
Note mixed_batch(const httplib::Request&, const nlohmann::json& message) {
  if (!message.is_array()) return std::nullopt;
  const auto problem = batch_problem(message);
  return problem ? Note("an invalid batch: " + *problem) : std::nullopt;
}

// In HttpRuleId order. Header rules do not refuse: a client whose pong lacks a header fails
// that header's check, and its pong is still judged (docs/verdicts.md, "Isolation"). A
// protocol-version header that is no version at all is refused with 400, as the transports
// page requires of servers and the SDK servers do; a well-formed version other than the
// negotiated one, supported or not, is the client's SHOULD missed (OtherVersion).
constexpr HttpRule kRules[] = {
    {HttpRuleId::BodyTooLarge, true, 413, "http:body-too-large", "http.post-body-json",
     "POST bodies of at most {max} bytes"},
    {HttpRuleId::NotJson, true, 400, "transport:valid-message", "http.post-body-json",
     kValidMessage},
    {HttpRuleId::NotMessage, true, 400, "transport:valid-message", "http.post-body-json",
     kValidMessage},
    {HttpRuleId::BadBatch, true, 400, "transport:valid-message", "http.post-body-batch",
     kValidBatch},
    {HttpRuleId::BatchedInitialize, true, 400, "transport:valid-message",
     "lifecycle.initialize-not-batched", kValidBatch},
    {HttpRuleId::MixedBatch, false, 400, "transport:valid-message", "http.post-body-batch",
     kValidBatch, Outcome::Broken, mixed_batch},
    {HttpRuleId::NoSessionHeader, false, 400, "http:session-id", "http.session-header",
     "every request after initialize carries the Mcp-Session-Id the server issued"},
    {HttpRuleId::UnknownSession, true, 404, "", "", ""},
    {HttpRuleId::ProtocolVersion, false, 400, "http:protocol-version",
     "http.protocol-version-header", kProtocolVersion},
    {HttpRuleId::OtherVersion, false, 400, "http:protocol-version",
     "http.protocol-version-negotiated", kProtocolVersion, Outcome::Degraded},
    {HttpRuleId::UnsupportedVersion, true, 400, "http:protocol-version",
     "http.protocol-version-header", kProtocolVersion},
    {HttpRuleId::PostAccept, false, 406, "http:accept", "http.accept-both",
     "a POST lists both application/json and text/event-stream in Accept", Outcome::Broken,
     post_accept},
    {HttpRuleId::GetAccept, false, 406, "http:accept", "http.accept-both",
     "a GET lists text/event-stream in Accept", Outcome::Broken, get_accept},
    {HttpRuleId::ContentType, false, 415, "http:content-type", "rfc9110.content-type",
     "a POST body comes with Content-Type: application/json", Outcome::Broken, content_type},
    {HttpRuleId::NoSessionParam, true, 400, "", "", ""},
    // The session rules start once a session exists: a probe before initialize (an early GET)
    // is refused as real servers refuse it, and noted, not failed.
    {HttpRuleId::BeforeSession, true, 400, "http:before-initialize", "lifecycle.init-first",
     "initialize is the client's first request"},
    // A GET sent together with initialize, before its response (and the session id) could
    // reach the client, may arrive just after the server created the session: it is the same
    // early probe, so the same INFO, and it is attached to that session as a lenient server
    // would (not http:session-id, which records a client that had the id and left it out).
    {HttpRuleId::GetBeforeSessionId, false, 400, "http:before-initialize", "lifecycle.init-first",
     "initialize is the client's first request"},
    // The 2026-07-28 binding. A real server MUST refuse a header that is missing or does not
    // match the body (400, HeaderMismatch -32020); the mock records it and goes on, so the
    // rest of the session (the ping the case is about) is still judged.
    {HttpRuleId::ModernVersionMissing, false, 400, "http:protocol-version",
     "http.modern-protocol-version-header", kModernVersion},
    {HttpRuleId::ModernVersionMismatch, false, 400, "http:protocol-version",
     "http.modern-protocol-version-match", kModernVersion},
    {HttpRuleId::MethodMissing, false, 400, "http:mcp-method", "http.modern-request-headers",
     kMcpMethod},
    {HttpRuleId::MethodMismatch, false, 400, "http:mcp-method", "http.modern-request-headers",
     kMcpMethod},
    {HttpRuleId::NameMissing, false, 400, "http:mcp-name", "http.modern-request-headers", kMcpName},
    {HttpRuleId::NameMismatch, false, 400, "http:mcp-name", "http.modern-request-headers",
     kMcpName},
    // The binding has no GET stream and no sessions: a server "SHOULD respond ... with 405
    // Method Not Allowed". No sentence forbids the client to try, so it is noted, not failed.
    {HttpRuleId::ModernGetOrDelete, true, 405, "http:modern-post-only",
     "http.modern-get-delete-405", "a 2026-07-28 client uses POST only (no GET stream, no DELETE)"},
    {HttpRuleId::CutShort, true, 400, "", "", ""},
    {HttpRuleId::TooManyStreams, true, 503, "", "", ""},
    {HttpRuleId::GetStreamOpen, true, 409, "", "", ""},
    {HttpRuleId::UnknownLegacySession, true, 404, "", "", ""},
    {HttpRuleId::MethodNotAllowed, true, 405, "", "", ""},
    {HttpRuleId::NoSuchPath, true, 404, "", "", ""},
    // 2026-07-28: "If the server does not implement the requested RPC method, it MUST respond
    // with 404 Not Found and a JSON-RPC error with code -32601 (Method not found)".
    {HttpRuleId::UnknownMethod, false, 404, "", "", ""},
};

constexpr bool rows_in_order() {
  for (std::size_t i = 0; i < std::size(kRules); ++i)
    if (static_cast<std::size_t>(kRules[i].id) != i) return false;
  return true;
}
static_assert(rows_in_order(), "kRules rows must be in HttpRuleId order");

std::string header_or_none(const httplib::Request& req, const char* name) {
  return req.has_header(name) ? req.get_header_value(name) : std::string("(none)");
}

}  // namespace

nlohmann::json rpc_error(int code, const std::string& message) {
  return nlohmann::json{{"jsonrpc", "2.0"}, {"error", {{"code", code}, {"message", message}}}};
}

bool is_routable_response(const nlohmann::json& m) { return is_response(m) && m.contains("id"); }

const HttpRule& http_rule(HttpRuleId id) { return kRules[static_cast<std::size_t>(id)]; }

std::vector<Rejection> rule_problems(const httplib::Request& req, const nlohmann::json& message,
                                     std::initializer_list<HttpRuleId> rules) {
  std::vector<Rejection> out;
  for (const auto id : rules)
    if (auto note = http_rule(id).broken(req, message)) out.push_back({id, std::move(*note)});
  return out;
}

std::string rule_actual(const HttpRule& rule, const httplib::Request& req, const std::string& note,
                        const std::string& body) {
  const auto request = req.method + " " + req.path;
  switch (rule.id) {
    case HttpRuleId::NoSessionHeader:
      return request + " without Mcp-Session-Id";
    case HttpRuleId::BeforeSession:
    case HttpRuleId::GetBeforeSessionId:
      return request + " before initialize: " + note;
    case HttpRuleId::ModernGetOrDelete:
      return request + " in a 2026-07-28 session: " + note;
    case HttpRuleId::PostAccept:
    case HttpRuleId::GetAccept:
      return request + " with Accept: " + header_or_none(req, "Accept");
    case HttpRuleId::ContentType:
      return "Content-Type: " + header_or_none(req, "Content-Type");
    case HttpRuleId::NotJson:
    case HttpRuleId::NotMessage:
    case HttpRuleId::BadBatch:
    case HttpRuleId::BatchedInitialize:
    case HttpRuleId::MixedBatch:
      return note + ": " + shorten(body, 200);
    case HttpRuleId::BodyTooLarge:
      return note;
    default:  // the protocol-version and request metadata header rules
      return request + ": " + note;
  }
}

}  // namespace mcpping
