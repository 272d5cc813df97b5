// The HTTP host's routes: the parts they share (HttpParts), their common steps (HttpRoutes),
// Streamable HTTP on /mcp (http_streamable_routes.cpp) and legacy HTTP+SSE on /sse and
// /message (http_legacy_routes.cpp). Behaviour: docs/http-mock-server.md.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <httplib.h>

#include "http/http_channel.hpp"
#include "http_exchanges.hpp"
#include "http_inbox.hpp"
#include "http_recorder.hpp"

namespace mcpping {

// The POST fault a script armed (Channel::arm_post_fault), until a POST matches it.
class PostFaults {
 public:
  void arm(const PostFault& fault);
  // The armed fault matching `message` (a batch: one of its messages), consumed; or nullopt.
  std::optional<PostFault> take(const Json& message);

 private:
  std::mutex mutex_;
  std::optional<PostFault> fault_;
};

struct HttpParts {
  HttpParts(Transcript& t, const HttpOptions& o)
      : transcript(t), options(o), recorder(t, inbox, o.max_body_bytes), exchanges(t, o) {}
  Transcript& transcript;
  const HttpOptions& options;
  HttpInbox inbox;
  HttpRecorder recorder;
  HttpExchanges exchanges;
  PostFaults faults;
  int port = 0;  // once bound
};

// A POST's body as read: whole, over the cap, or cut short (the connection ended before the
// bytes its Content-Length announced, as when a client exits while it writes a request).
struct PostBody {
  enum class Status { kWhole, kTooLarge, kCutShort };
  Status status = Status::kWhole;
  std::string bytes;
};

class HttpRoutes {
 public:
  explicit HttpRoutes(HttpParts& parts) : p_(parts) {}
  virtual ~HttpRoutes() = default;
  // The transport's routes, then 405 for another method on its POST path, 404 elsewhere.
  void install(httplib::Server& server);

 protected:
  using Req = httplib::Request;
  using Res = httplib::Response;
  // The transport's other routes; returns its POST path.
  virtual std::string install_own(httplib::Server& server) = 0;
  // A POST to that path, with a body or without one (an empty body).
  virtual void handle_post(const Req& req, Res& res, const httplib::ContentReader& reader) = 0;

  PostBody read_body(const Req& req, const httplib::ContentReader& reader);
  // Refuses a body over the cap or cut short (true).
  bool refuse_unread_body(const Req& req, Res& res, const PostBody& body,
                          const std::string& session);
  // Refuses a body that is not JSON, or neither one JSON-RPC message nor a batch (true).
  bool refuse_non_message(const Req& req, Res& res, const Json& message, const std::string& body,
                          const std::string& session);
  // Refuses a batch POSTed to a session that did not negotiate 2025-03-26, or an invalid one
  // (true); anything else may go on.
  bool refuse_bad_batch(const Req& req, Res& res, const Json& message, const std::string& body,
                        const std::string& session);
  // Applies an armed fault matching `message` and hands the message on (true).
  bool fault_post(const Req& req, Res& res, const Json& message, const std::string& body,
                  const std::string& session, Clock::time_point arrived);
  // Records the POST and hands its message (a batch: each, with "batch") to the script with
  // the request's HTTP facts.
  void hand_on(const Req& req, int status, const std::string& session, const Json& message,
               const std::string& body, Clock::time_point arrived);
  void push_messages(const Json& message, const std::string& body, Json meta,
                     Clock::time_point arrived);
  // A place for a stream or a pending POST, else 503 (false).
  bool admit_stream(const Req& req, Res& res, const std::string& session);
  // Serves `stream` on this request's connection; `on_close` runs when the connection ends
  // (the stream may live on, disconnected, for the client to resume).
  void serve_stream(const Req& req, Res& res, const std::shared_ptr<SseStream>& stream,
                    std::function<void(bool disconnected)> on_close);
  // Serves a session's listening stream (the GET stream, legacy's SSE stream): it is
  // forgotten when its connection ends, unless the server only disconnected it.
  void serve_listening(const Req& req, Res& res, const std::shared_ptr<SseStream>& stream,
                       const std::string& session);

  HttpParts& p_;
};

class StreamableRoutes : public HttpRoutes {
 public:
  using HttpRoutes::HttpRoutes;

 private:
  std::string install_own(httplib::Server& server) override;
  void handle_post(const Req& req, Res& res, const httplib::ContentReader& reader) override;
  // The rules of a POST (false: refused); sets `session`.
  bool admit_post(const Req& req, Res& res, const Json& message, const std::string& body,
                  bool initialize, bool modern, std::string& session);
  bool admit_modern_post(const Req& req, Res& res, const Json& message, const std::string& body);
  // The POST's answer, once the script has decided how it goes.
  void answer_exchange(const Req& req, Res& res, const std::shared_ptr<Exchange>& ex, bool modern);
  void handle_get(const Req& req, Res& res);
  // A GET whose Last-Event-ID names an event of a disconnected stream resumes it (true).
  bool resume_stream(const Req& req, Res& res, const std::string& session);
  // The session's listening stream, if open, gives way to this GET: replaced when the server
  // disconnected it, else the GET is refused with 409 (false).
  bool replace_listening(const Req& req, Res& res, const std::string& session, Json& meta);
  void handle_delete(const Req& req, Res& res);
  // The session rules of a GET or DELETE (false: refused); sets `session`.
  bool admit_session_request(const Req& req, Res& res, std::string& session);
  // The session and protocol version rules of a request after initialize (false: refused).
  bool admit_session(const Req& req, Res& res, const std::string& body, std::string& session);
  // A modern run in which no initialize started a session: the 2026-07-28 binding.
  bool modern_binding();
};

class LegacyRoutes : public HttpRoutes {
 public:
  using HttpRoutes::HttpRoutes;

 private:
  std::string install_own(httplib::Server& server) override;
  void handle_get(const Req& req, Res& res);
  void handle_post(const Req& req, Res& res, const httplib::ContentReader& reader) override;
  bool admit_post(const Req& req, Res& res, const Json& message, const std::string& body,
                  const std::string& session);
};

}  // namespace mcpping
