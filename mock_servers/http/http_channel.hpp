// The Channel over HTTP on loopback: Streamable HTTP on /mcp (the session-based form of
// 2025-03-26..2025-11-25, or the 2026-07-28 binding) or legacy HTTP+SSE on /sse + /message
// (2024-11-05). Validates every request, records it
// (`http`/`sse` transcript records), hands client messages to the interpreter with their
// HTTP facts, and writes the script's frames on the streams they are routed to.
// Behaviour: docs/http-mock-server.md. Parts: the rules (http_rules), the sessions
// (http_sessions), the 2026-07-28 header rules (http_modern), the routes
// (http_streamable_routes.cpp, http_legacy_routes.cpp), frame
// routing and writing (http_send.cpp), the httplib workarounds (httplib_support).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <httplib.h>

#include "engine/channel.hpp"
#include "engine/transcript.hpp"
#include "http/http_rules.hpp"
#include "http/http_sessions.hpp"
#include "http/httplib_support.hpp"
#include "http/sse_stream.hpp"

namespace mcpping {

struct HttpOptions {
  bool legacy = false;           // transport "sse" (HTTP+SSE) instead of "streamable-http"
  bool post_always_sse = false;  // fixture "http": {"post_responses": "sse"}
  // The run's revision is modern (2026-07-28): requests are served by that revision's binding
  // (no sessions, request metadata headers, POST only) unless an initialize starts a legacy
  // session, as a dual-era server does ("An initialize request selects legacy semantics").
  bool modern = false;
  Clock::time_point deadline{};  // the case deadline: no wait lasts beyond it (plus a grace)
  std::size_t max_body_bytes = 4u << 20;
  std::size_t workers = 64;
  std::size_t max_streams = 48;  // open SSE streams and pending POSTs together
};

// A POST's body as read: whole, over the cap, or cut short (the connection ended before the
// bytes its Content-Length announced, as when a client exits while it writes a request).
struct PostBody {
  enum class Status { kWhole, kTooLarge, kCutShort };
  Status status = Status::kWhole;
  std::string bytes;
};

class HttpChannel : public Channel {
 public:
  HttpChannel(Transcript& transcript, HttpOptions options);
  ~HttpChannel() override;
  HttpChannel(const HttpChannel&) = delete;
  HttpChannel& operator=(const HttpChannel&) = delete;

  // Binds 127.0.0.1 on a free port and serves from a thread; returns once the socket listens
  // (connections wait in its backlog until the accept loop runs).
  // Throws std::runtime_error when it cannot bind.
  void start();
  // "http://127.0.0.1:<port>/mcp" (or "/sse" for legacy).
  std::string url() const;
  int port() const { return port_; }
  // Ends every stream and stops the server (idempotent). receive() then returns Interrupted.
  void stop();

  SendResult send(const std::vector<std::string>& frames, const SendOptions& options) override;
  SendResult send_raw(const std::string& bytes, std::size_t chunk,
                      const std::string& route) override;
  Incoming receive(Clock::time_point deadline) override;
  void end_input(Incoming::Kind why) override;
  void close_input() override {}  // stdio-only steps never reach an HTTP script
  void close_output() override {}
  std::size_t write_stderr(std::string_view bytes, Clock::time_point deadline) override;
  bool arm_post_fault(const PostFault& fault) override;
  DisconnectResult disconnect(const std::string& route) override;

 private:
  // A client request POSTed to /mcp (or, 2025-03-26, a batch holding requests), waiting for
  // the script's answers.
  struct Exchange {
    Json id;                     // the (first) request's id
    std::string key;             // compact JSON of it: names the POST's stream, "post:<key>"
    std::set<std::string> open;  // keys of the requests still unanswered
    std::string session;
    bool initialize = false;
    enum class Mode { Undecided, Json, Sse } mode = Mode::Undecided;
    std::string json_body;
    std::shared_ptr<SseStream> stream;
    bool answered = false;  // every request has its response
  };
  struct Target {
    std::shared_ptr<Exchange> exchange;  // set when the frame goes to a POST
    std::shared_ptr<SseStream> stream;
    std::string name;
    std::string answers;    // the key of the POST's request the frame responds to, if any
    bool finishes = false;  // the frame is the POST's last response: its stream ends after it
    std::string error;      // no stream to send on
  };

  void install_routes();

  // Streamable HTTP, /mcp (http_streamable_routes.cpp).
  void handle_post(const httplib::Request& req, httplib::Response& res,
                   const httplib::ContentReader& reader);
  // The steps of handle_post: the body as one JSON-RPC message or a batch (nullopt: refused
  // and answered here); the rules a POST must meet before its message goes on (false:
  // refused; `session` is set); the exchange of a POST holding requests; its answer, once
  // the script has decided how it goes.
  std::optional<Json> post_message(const httplib::Request& req, httplib::Response& res,
                                   const std::string& body);
  bool admit_post(const httplib::Request& req, httplib::Response& res, const Json& message,
                  const std::string& body, bool initialize, bool modern, std::string& session);
  bool admit_modern_post(const httplib::Request& req, httplib::Response& res, const Json& message,
                         const std::string& body);
  std::shared_ptr<Exchange> open_exchange(const std::vector<Json>& requests, bool initialize,
                                          bool batch, std::string& session);
  void answer_exchange(const httplib::Request& req, httplib::Response& res,
                       const std::shared_ptr<Exchange>& ex, bool modern);
  void handle_get(const httplib::Request& req, httplib::Response& res);
  void handle_delete(const httplib::Request& req, httplib::Response& res);
  // Legacy HTTP+SSE, /sse and /message (http_legacy_routes.cpp).
  void handle_legacy_post(const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& reader);
  void handle_legacy_get(const httplib::Request& req, httplib::Response& res);
  // Any other method or path.
  void handle_other(const httplib::Request& req, httplib::Response& res);

  void release_listening_stream(const std::shared_ptr<SseStream>& stream,
                                const std::string& session, const std::string& name,
                                bool disconnected);
  // Reads the body up to the cap.
  PostBody read_body(const httplib::Request& req, const httplib::ContentReader& reader);
  // Answers and records a body that is no message (over the cap, or cut short); false for a
  // whole one.
  bool refuse_unread_body(const httplib::Request& req, httplib::Response& res, const PostBody& body,
                          const std::string& session);
  // The session checks of a Streamable HTTP request after initialize (HttpSessions::check).
  SessionCheck check_session(const httplib::Request& req);
  // Whether requests are served by the 2026-07-28 binding: a modern run in which no
  // initialize started a legacy session.
  bool modern_binding();
  // A modern session's GET or DELETE: 405, and the INFO check (true: answered here).
  bool refuse_in_modern_binding(const httplib::Request& req, httplib::Response& res);
  // Answers with the rule's status and `rejection`'s body, records it, keeps `body` as a
  // rejected `raw` record and records the rule's implicit check.
  void reject(const httplib::Request& req, httplib::Response& res, const Rejection& rejection,
              const std::string& session, const std::string& body = {});
  void record_http(const httplib::Request& req, int status, const std::string& session,
                   Json extra = Json::object());
  // Records `rule`'s implicit check with the rule's outcome, once per case, or again when a
  // later request breaks it worse (degraded, then broken).
  void implicit_check(const HttpRule& rule, const std::string& actual);
  // The request broke a rule: a rule that refuses answers with its status (true: the request
  // ends here); any other is recorded and the request goes on, as a lenient server lets it.
  bool broke(const httplib::Request& req, httplib::Response& res, const Rejection& rule,
             const std::string& session, const std::string& body = {});
  Json facts(const httplib::Request& req, int status, const std::string& session) const;
  // Pushes a `post-refused` event when a refused POST body was a JSON-RPC response.
  void refused_response(const httplib::Request& req, int status, const std::string& session,
                        const std::string& body);
  // Hands the POST's message to the script, or each message of a batch, in order, with the
  // request's HTTP facts (`meta`; a batch adds "batch": its size).
  void push_messages(const Json& message, const std::string& body, Json meta,
                     Clock::time_point arrived);
  // A batch POSTed to a session (2025-03-26 only): nullopt when it may go on, else why not.
  std::optional<Rejection> check_batch(const Json& batch, const std::string& session);
  // An armed fault matching `message`, consumed; nullopt when none matches.
  std::optional<PostFault> take_fault(const Json& message);
  void apply_fault(const httplib::Request& req, httplib::Response& res, const std::string& with);
  // Applies an armed fault matching `message`, records the POST and hands the message on;
  // false when no fault matched.
  bool fault_post(const httplib::Request& req, httplib::Response& res, const Json& message,
                  const std::string& body, const std::string& session, Clock::time_point arrived);
  bool admit_stream(const httplib::Request& req, httplib::Response& res,
                    const std::string& session);
  // Serves `stream` on this request's connection; `on_close` runs when the connection ends
  // (the stream may live on, disconnected, for the client to resume).
  void serve_stream(const httplib::Request& req, httplib::Response& res,
                    const std::shared_ptr<SseStream>& stream,
                    std::function<void(bool disconnected)> on_close);
  // The end of a connection serving a POST's stream: the exchange stays while its stream has
  // not ended (the server disconnected it, for the client to resume).
  void release_exchange_connection(const std::shared_ptr<Exchange>& ex);
  // A GET whose Last-Event-ID names an event of a disconnected stream of its session resumes
  // that stream (true: answered here).
  bool resume_stream(const httplib::Request& req, httplib::Response& res,
                     const std::string& session);
  void push(Incoming in);
  void push_event(const std::string& name, Json meta);

  // The POST whose request (one of a batch's) with compact JSON id `key` is still
  // unanswered, or null (under mutex_).
  std::shared_ptr<Exchange> unanswered_locked(const std::string& key);
  // Where a frame goes (under mutex_). `message` is null for raw bytes (http_send.cpp).
  Target route_locked(const Json& message, const std::string& route);
  void decide_sse_locked(Exchange& ex);
  // A frame routed to a POST's exchange: true when it goes on the POST's stream (t.stream),
  // false when it became the POST's JSON body (under mutex_).
  bool to_exchange_locked(Target& t, const Json& message, const std::string& text);

  Transcript& transcript_;
  const HttpOptions options_;
  httplib::Server server_;
  AcceptLoop accept_loop_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};

  std::mutex mutex_;
  std::condition_variable decided_;  // an Exchange's mode was decided, or stopping
  HttpSessions sessions_;
  std::list<std::shared_ptr<Exchange>> pending_;    // unanswered requests, oldest first
  std::map<std::string, Outcome> recorded_checks_;  // implicit checks recorded, and how
  std::optional<PostFault> fault_;
  // Legacy HTTP+SSE: the session and compact JSON id of an initialize whose answer has not
  // gone out yet; its protocolVersion is the session's negotiated version.
  std::pair<std::string, std::string> legacy_initialize_;
  std::size_t open_streams_ = 0;

  std::mutex in_mutex_;
  std::condition_variable in_cv_;
  std::optional<Incoming::Kind> input_end_;  // end_input(); guarded by in_mutex_
  std::deque<Incoming> inbox_;
};

}  // namespace mcpping
