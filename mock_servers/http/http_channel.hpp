// The Channel over HTTP on loopback: Streamable HTTP on /mcp (2025-03-26..2025-11-25) or
// legacy HTTP+SSE on /sse + /message (2024-11-05). Validates every request, records it
// (`http`/`sse` transcript records), hands client messages to the interpreter with their
// HTTP facts, and writes the script's frames on the streams they are routed to.
// Behaviour: docs/http-mock-server.md.
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
#include <thread>

#include <httplib.h>

#include "engine/channel.hpp"
#include "engine/transcript.hpp"
#include "http/sse_stream.hpp"

namespace mcpping {

struct HttpOptions {
  bool legacy = false;           // transport "sse" (HTTP+SSE) instead of "streamable-http"
  bool post_always_sse = false;  // fixture "http": {"post_responses": "sse"}
  Clock::time_point deadline{};  // the case deadline: no wait lasts beyond it (plus a grace)
  std::size_t max_body_bytes = 4u << 20;
  std::size_t workers = 64;
  std::size_t max_streams = 48;  // open SSE streams and pending POSTs together
};

class HttpChannel : public Channel {
 public:
  HttpChannel(Transcript& transcript, HttpOptions options);
  ~HttpChannel() override;
  HttpChannel(const HttpChannel&) = delete;
  HttpChannel& operator=(const HttpChannel&) = delete;

  // Binds 127.0.0.1 on a free port and serves from a thread; returns once it accepts.
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
  void close_input() override {}  // stdio-only steps never reach an HTTP script
  void close_output() override {}
  std::size_t write_stderr(std::string_view bytes, std::stop_token stop) override;
  bool arm_post_fault(const PostFault& fault) override;

 private:
  struct Session {
    std::string id;
    std::optional<std::string> protocol_version;  // negotiated, from the initialize result
    bool deleted = false;
    std::shared_ptr<SseStream> stream;  // GET listening stream (legacy: the SSE stream)
  };
  // A client request POSTed to /mcp, waiting for the script's answer.
  struct Exchange {
    Json id;
    std::string key;  // compact JSON of the id
    std::string session;
    bool initialize = false;
    enum class Mode { Undecided, Json, Sse } mode = Mode::Undecided;
    std::string json_body;
    std::shared_ptr<SseStream> stream;
    bool answered = false;
  };
  struct Target {
    std::shared_ptr<Exchange> exchange;  // set when the frame goes to a POST
    std::shared_ptr<SseStream> stream;
    std::string name;
    bool finishes = false;  // the frame is the POST's response: its stream ends after it
    std::string error;      // no stream to send on
  };
  struct Reply {
    int status = 0;
    std::string note;     // why, for the transcript
    std::string check;    // implicit check violated, if any
    Json body = nullptr;  // JSON-RPC error body, if any
  };

  void install_routes();
  void handle_post(const httplib::Request& req, httplib::Response& res,
                   const httplib::ContentReader& reader);
  void handle_legacy_post(const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& reader);
  void handle_get(const httplib::Request& req, httplib::Response& res);
  void handle_legacy_get(const httplib::Request& req, httplib::Response& res);
  void release_listening_stream(const std::shared_ptr<SseStream>& stream,
                                const std::string& session, const std::string& name);
  void handle_delete(const httplib::Request& req, httplib::Response& res);
  void handle_other(const httplib::Request& req, httplib::Response& res);

  // Reads the body up to the cap; nullopt (and a 413 reply) when it is larger.
  std::optional<std::string> read_body(const httplib::Request& req,
                                       const httplib::ContentReader& reader);
  // Session and protocol version checks for a Streamable HTTP request after initialize.
  std::optional<Reply> check_session(const httplib::Request& req, std::string& session);
  // Answers with `reply` and records it.
  void reject(const httplib::Request& req, httplib::Response& res, const Reply& reply,
              const std::string& session, const std::string& body = {});
  void record_http(const httplib::Request& req, int status, const std::string& session,
                   Json extra = Json::object());
  void implicit_check(const std::string& id, Level level, const std::string& spec,
                      const std::string& expected, const std::string& actual);
  Json facts(const httplib::Request& req, int status, const std::string& session) const;
  // An armed fault matching `message`, consumed; nullopt when none matches.
  std::optional<std::string> take_fault(const Json& message);
  void apply_fault(const httplib::Request& req, httplib::Response& res, const std::string& with);
  bool admit_stream(const httplib::Request& req, httplib::Response& res,
                    const std::string& session);
  void serve_stream(httplib::Response& res, std::shared_ptr<SseStream> stream,
                    std::function<void()> on_close);
  void push(Incoming in);
  void push_event(const std::string& name, Json meta);
  bool connected_locked() const;

  // Where a frame goes (under mutex_). `message` is null for raw bytes.
  Target route_locked(const Json& message, const std::string& route);
  void decide_sse_locked(Exchange& ex);
  void note_initialize_result_locked(const Exchange& ex, const Json& message);

  Transcript& transcript_;
  const HttpOptions options_;
  httplib::Server server_;
  std::thread listener_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};

  std::mutex mutex_;
  std::condition_variable decided_;  // an Exchange's mode was decided, or stopping
  std::map<std::string, Session> sessions_;
  std::string legacy_session_;                    // the legacy session frames go to
  std::list<std::shared_ptr<Exchange>> pending_;  // unanswered requests, oldest first
  std::set<std::string> recorded_checks_;
  std::optional<PostFault> fault_;
  std::size_t open_streams_ = 0;
  std::uint64_t session_counter_ = 0;

  std::mutex in_mutex_;
  std::condition_variable in_cv_;
  std::deque<Incoming> inbox_;
};

}  // namespace mcpping
