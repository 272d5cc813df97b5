// The sessions the HTTP mock server issued: creation, lookup, the negotiated protocol version
// and each session's listening stream. Not synchronized: the channel guards it with its mutex.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <httplib.h>

#include "http_rules.hpp"
#include "sse_stream.hpp"

namespace mcpping {

struct HttpSession {
  std::uint64_t serial = 0;  // creation order (ids compare as text: "10" before "2")
  std::optional<std::string> protocol_version;  // negotiated, from the initialize result
  bool deleted = false;                         // the client deleted it (DELETE)
  // A request of the client other than its initialize and its GETs came for this session:
  // the client had the initialize response, so it knew the session id.
  bool client_went_on = false;
  std::string ended;                  // why the server ended it; "" while it lives
  std::shared_ptr<SseStream> stream;  // GET listening stream (legacy: the SSE stream)

  // Deleted or ended: requests that name it get 404.
  bool gone() const { return deleted || !ended.empty(); }
};

// What the session rules say about a request: its session and the rules it broke (a rule
// that refuses comes alone: there is no session to attach the request to).
struct SessionCheck {
  std::string session;
  std::vector<Rejection> broken;
};

class HttpSessions {
 public:
  // A new Streamable HTTP session, "mcp-session-<n>-<pid>" (visible ASCII only, 0x21-0x7E,
  // as the spec requires); given its SSE stream, a legacy session, "legacy-<n>-<pid>", which
  // frames go to from now on.
  std::string create(std::shared_ptr<SseStream> legacy_stream = nullptr);

  // The session `id`, created empty if unknown (callers pass ids they checked).
  HttpSession& at(const std::string& id) { return sessions_[id]; }
  bool contains(const std::string& id) const { return sessions_.count(id) != 0; }
  // No session was ever created.
  bool empty() const { return sessions_.empty(); }

  // The session and protocol version checks of a Streamable HTTP request after initialize.
  // A request other than a GET also notes that the client went on (HttpSession).
  SessionCheck check(const httplib::Request& req);

  // Remembers the protocolVersion of an initialize result sent for `session`.
  void note_initialize_result(const std::string& session, const nlohmann::json& message);
  // The version negotiated for `session`, if any.
  std::optional<std::string> negotiated(const std::string& session) const;

  // The server ends `session` ("The server MAY terminate the session at any time, after which
  // it MUST respond to requests containing that session ID with HTTP 404 Not Found"): later
  // requests naming it get 404. Streams already open stay open. False if it is unknown.
  bool end(const std::string& session, const std::string& why);

  // Whether the client is still connected: a session not deleted (legacy: an SSE stream open).
  // A latest session the server ended counts: its client is expected to start a new one.
  bool connected(bool legacy) const;

  // The open listening stream of the most recent session that has one, or null.
  std::shared_ptr<SseStream> latest_get_stream() const;
  // The legacy session's open SSE stream, or null.
  std::shared_ptr<SseStream> legacy_stream() const;

  // Ends every listening stream (server shutdown).
  void stop_streams();

 private:
  std::map<std::string, HttpSession> sessions_;
  std::string legacy_session_;  // the legacy session frames go to
  std::uint64_t counter_ = 0;
  std::string latest_;  // the Streamable HTTP session created last
};

}  // namespace mcpping
