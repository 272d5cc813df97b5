// The HTTP host's shared state, under one mutex: the sessions, the POSTs waiting for the
// script's answers (exchanges), the open-stream budget; and where the script's frames go
// (docs/http-mock-server.md, "Where the script's frames go") and their writing.
#pragma once

#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "engine/channel.hpp"
#include "engine/transcript.hpp"
#include "http/http_channel.hpp"
#include "http_sessions.hpp"
#include "sse_stream.hpp"

namespace mcpping {

// A client request POSTed to /mcp (or, 2025-03-26, a batch holding requests), waiting for the
// script's answers.
struct Exchange {
  std::string key;  // compact JSON of the (first) request's id: names its stream, "post:<key>"
  std::set<std::string> open;  // keys of the requests still unanswered
  std::string session;
  bool initialize = false;
  enum class Mode { Undecided, Json, Sse } mode = Mode::Undecided;
  std::string json_body;
  std::shared_ptr<SseStream> stream;
  bool answered = false;  // every request has its response
};

class HttpExchanges {
 public:
  HttpExchanges(Transcript& transcript, const HttpOptions& options)
      : transcript_(transcript), options_(options) {}

  template <class F>
  decltype(auto) with_sessions(F&& f) {
    const std::lock_guard lock(mutex_);
    return f(sessions_);
  }
  // Takes one of the max_streams places of open streams and pending POSTs; false when none.
  bool take_place();
  void free_place();

  // The exchange of a POST holding `requests` (ids); an initialize creates `session`.
  std::shared_ptr<Exchange> open(const std::vector<Json>& requests, bool initialize, bool batch,
                                 std::string& session);
  // Waits (to the case deadline, plus a grace) until the script decided how the POST is
  // answered; a JSON body or no answer frees its place (Undecided: dropped at shutdown).
  Exchange::Mode await_decided(const std::shared_ptr<Exchange>& ex);
  // The end of a connection serving a POST's stream: the exchange stays while its stream has
  // not ended (the server disconnected it, for the client to resume).
  void release_connection(const std::shared_ptr<Exchange>& ex);
  // Legacy: the id of an initialize whose answer settles the session's version.
  void expect_legacy_initialize(const std::string& session, const std::string& key);
  // The disconnected stream of `session` that wrote event `last_event_id`, with its exchange.
  std::pair<std::shared_ptr<Exchange>, std::shared_ptr<SseStream>> resumable(
      const std::string& session, const std::string& last_event_id);
  Json disconnected(const std::string& session);
  // Ends `session` and its streams; whether the client is still connected.
  bool delete_session(const std::string& session);

  SendResult send(const std::vector<std::string>& frames, const SendOptions& options);
  SendResult send_raw(const std::string& bytes, std::size_t chunk, const std::string& route);
  DisconnectResult disconnect(const std::string& route);
  // Ends every stream and every wait (idempotent).
  void stop();

 private:
  struct Target;
  std::shared_ptr<Exchange> unanswered_locked(const std::string& key);
  Target route_locked(const Json& message, const std::string& route);
  Target stream_target_locked(const std::string& route);
  void decide_sse_locked(Exchange& ex);
  bool to_exchange_locked(Target& t, const Json& message, const std::string& text);
  Clock::time_point write_limit() const;

  Transcript& transcript_;
  const HttpOptions& options_;
  std::mutex mutex_;
  std::condition_variable decided_;  // an Exchange's mode was decided, or stopping
  bool stopping_ = false;
  HttpSessions sessions_;
  std::list<std::shared_ptr<Exchange>> pending_;  // unanswered requests, oldest first
  std::size_t open_streams_ = 0;
  // Legacy HTTP+SSE: the session and compact JSON id of an initialize whose answer has not
  // gone out yet; its protocolVersion is the session's negotiated version.
  std::pair<std::string, std::string> legacy_initialize_;
};

}  // namespace mcpping
