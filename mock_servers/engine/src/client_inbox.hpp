// What the client sends, as the script sees it: the input pump, the inbox of requests and
// notifications no step has taken yet, and every response the client sent.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/channel.hpp"
#include "engine/default_server.hpp"
#include "engine/transcript.hpp"

namespace mcpping {

using Json = nlohmann::json;

class CaseClock;
class Recorder;
class ScriptCursor;
class Sender;

// One client message (or, with `event` set and a null `json`, a transport event).
struct ClientMessage {
  Json json;
  Clock::time_point at;
  std::size_t requests_before = 0;  // client requests (not pings) that arrived before it
  Json meta;                        // HTTP facts (Incoming::meta); null on stdio
  std::string event;                // a transport event's name; json is null then
  std::size_t request_index = 0;    // a request: its place in ClientInbox::request_ids
};

// HTTP: the session the host attached the message to ("" on stdio).
inline std::string session_of(const ClientMessage& message) {
  return message.meta.is_object() ? message.meta.value("session", "") : std::string();
}

// Why a pump returned.
enum class Pump { Stopped, Deadline, Eof, CaseDeadline, Interrupted };

// Sees each client message first. Returns true to stop pumping; a request or notification it
// stops on is consumed (not answered, not kept in the inbox).
using Claim = std::function<bool(const ClientMessage&)>;

// The inbox reads the channel, notes contact and the start-up budget on the clock, records
// the mock server's own checks, answers the default way through the sender, and asks the
// script which requests a later step takes.
struct InboxParts {
  Channel& channel;
  Transcript& transcript;
  CaseClock& clock;
  Recorder& recorder;
  Sender& sender;
  const ScriptCursor& script;
  const ServerDefaults& defaults;
  std::size_t line_cap;  // the longest client line, in bytes
};

class ClientInbox {
 public:
  explicit ClientInbox(const InboxParts& parts) : parts_(parts) {}

  // Processes what the client does until `claim` stops, the deadline, end of input, or the
  // case deadline. A request nobody claims gets the default service at once when it is one a
  // real server answers whatever it is doing (default_service()) and no later step expects
  // it; other requests and notifications wait in the inbox (or, when serving, get their
  // default answer).
  Pump pump(Clock::time_point deadline, const Claim& claim);

  // Waits for a client request or notification matching `pattern`: first in the inbox, then
  // as it arrives.
  std::optional<ClientMessage> await_message(const Json& pattern, Clock::time_point deadline,
                                             Pump& why);

  // Waits until `reached()` holds: at once when a transport event already made it so, else
  // until the event named `event` arrives (Pump::Stopped), the deadline or the end of input.
  Pump await_event(const std::string& event, Clock::time_point deadline,
                   const std::function<bool()>& reached);

  // Why nothing came: "nothing matching within 60.0 ms (waiting unmatched: ...)" and the like.
  std::string no_message_text(Pump why, double within_ms, Clock::time_point since) const;

  // The session's protocol version is settled (an initialize answered, a modern probe). At
  // 2025-03-26 a line may be a JSON-RPC batch: each of its elements is then handled as a
  // message of its own, in order (stdio; the HTTP host splits a batch POST itself).
  void negotiated(const std::string& version) { negotiated_version_ = version; }
  // The session's lifecycle: modern once a discover step settled on a modern version.
  Era era() const;
  // A modern session: records the per-request _meta fields the request lacks, as the mock
  // server's own checks (modern:request-meta, MUST; modern:client-info, SHOULD), each once
  // per case; the request is processed all the same, as a lenient server would.
  void check_modern_request(const ClientMessage& message);

  // A step that took requests or notifications and leaves them for later puts them back in
  // the inbox: at the front (next to be taken) or the back.
  void put_back_first(ClientMessage message) { waiting_.push_front(std::move(message)); }
  void put_back(ClientMessage message) { waiting_.push_back(std::move(message)); }
  // From now on answers every request the default way as it comes, and those waiting now.
  void serve_all();
  // Sends the default server's answer to `message`, when it has one.
  void answer_default(const Json& message);

  const std::vector<ClientMessage>& responses() const { return responses_; }  // in order
  // Responses POSTed and refused by an HTTP rule (meta: the POST's facts, `refused`).
  const std::vector<ClientMessage>& refused_responses() const { return refused_responses_; }
  std::size_t client_requests() const { return client_requests_; }  // other than ping
  // Every client request's id and method, in the order they came (the session's used ids).
  const std::vector<std::pair<Json, std::string>>& request_ids() const { return request_ids_; }
  bool get_stream_open() const { return get_stream_open_; }  // HTTP: the listening stream
  // stdio: the bytes of the message the armed hold stopped in, once it happened; taken once.
  bool input_held() const { return held_input_bytes_.has_value(); }
  std::optional<std::size_t> take_held_input() { return std::exchange(held_input_bytes_, {}); }
  // Streamable HTTP: the streams the client resumed (a GET with Last-Event-ID), by name
  // ("post:<id>", "get"), each with the facts of its latest resumption (the event's meta);
  // "get" also when a GET reconnected the disconnected listening stream without resuming it
  // (a `get-stream-opened` event with `reconnects`).
  const std::map<std::string, ClientMessage>& resumed() const { return resumed_; }
  bool client_gone() const { return client_gone_; }  // HTTP: no session or stream left

 private:
  Incoming next(Clock::time_point deadline);
  // The steps of pump(): the default-service requests already in the inbox, the claim seeing
  // each first (true: one was claimed); then each input taken in turn, nullopt while the pump
  // goes on.
  bool claim_waiting(const Claim& claim);
  std::optional<Pump> take(const Incoming& in, const Claim& claim, Clock::time_point deadline);
  void on_overflow(const Incoming& in);
  std::optional<Pump> on_event(const Incoming& in, const Claim& claim);
  std::optional<Pump> on_timeout(Clock::time_point deadline);
  bool on_line(const Incoming& in, const Claim& claim);
  // A line holding a JSON array: its elements queued as messages (a batch the negotiated
  // version allows), or the line recorded as invalid.
  void on_array(const Incoming& in, const Json& array);
  // The default service: answers `message` as the default server would and records it (an
  // event naming method and id) when it is a default_service() request no later step takes.
  // False when the message is not for it.
  bool serve_in_passing(const ClientMessage& message);
  void invalid_message(const std::string& text, const std::string& why,
                       std::string_view spec = "stdio.client-writes-only-messages");

  // True the first time for `what`: the mock server records each of its own checks (and
  // notes) once per case.
  bool first_time(const std::string& what) { return recorded_.insert(what).second; }
  // A client notifications/cancelled: records cancellation:references (MUST), once per case,
  // when its requestId names no request the client sent before, or its initialize.
  void check_cancellation(const ClientMessage& message);

  InboxParts parts_;
  std::deque<ClientMessage> waiting_;
  std::vector<ClientMessage> responses_;
  std::vector<ClientMessage> refused_responses_;
  std::size_t client_requests_ = 0;
  std::vector<std::pair<Json, std::string>> request_ids_;
  bool serving_ = false;
  bool get_stream_open_ = false;
  std::optional<std::size_t> held_input_bytes_;
  std::map<std::string, ClientMessage> resumed_;
  bool client_gone_ = false;
  std::optional<std::string> negotiated_version_;
  std::optional<Incoming> stash_;  // arrived after the deadline of the pump that read it
  std::deque<Incoming> batch_;     // the elements of a batch line, not handled yet
  bool eof_ = false;
  std::set<std::string> recorded_;  // the checks and notes of first_time()
};

}  // namespace mcpping
