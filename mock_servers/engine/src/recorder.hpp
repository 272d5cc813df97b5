// Writes the checks of one case to its transcript, each attributed to the step that records
// it: at once, at the end of the run (defer), or, for a handshake whose
// notifications/initialized has not come, when it comes late or never.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "engine/transcript.hpp"
#include "script_cursor.hpp"

namespace mcpping {

using Json = nlohmann::json;

struct ClientMessage;

// A short human description of a client message: `tools/call id 2`, else the message shortened.
std::string describe_message(const Json& message);
// `error -32601 "Method not found"`.
std::string describe_error(const Json& response);
// `5 (integer)`.
std::string typed(const Json& value);

// The handshake went on without notifications/initialized: its check waits for it.
struct OwedInitialized {
  std::string init_text;    // "initialize (protocolVersion ...) after N ms"
  std::string moved_on;     // why the script went on
  Clock::time_point since;  // the initialize response
  std::size_t step = 0;     // the handshake's step
  std::string session;      // HTTP: the session its initialize started ("" on stdio)
};

class Recorder {
 public:
  // Records go to `transcript`, attributed to `script`'s current step.
  Recorder(Transcript& transcript, ScriptCursor& script)
      : transcript_(transcript), script_(script) {}

  void record(const CheckDef& check, Outcome outcome, std::string expected, std::string actual,
              std::vector<double> latency = {}, Json details = Json::object());
  // The mock server's own check, recorded only when violated.
  void record_implicit(const CheckDef& check, std::string expected, std::string actual);

  // A check recorded once the run is over, over everything the client sent by then: a reply
  // to a notification, a second pong or a success answer to a malformed id still counts
  // when it comes late, and no fixed wait holds up the script (docs/verdicts.md, "Watched
  // to the end"). `settle` records the check, attributed to the current step.
  void defer(std::function<void()> settle);
  // Settles the owed handshake and every deferred check, in the order they were deferred:
  // at the end of the run, or once nothing more can arrive (close_stdin).
  void settle_deferred();

  // The handshake's check waits for notifications/initialized.
  void owe_initialized(OwedInitialized owed) { owed_ = std::move(owed); }
  bool owes_initialized() const { return owed_.has_value(); }
  // While the handshake's check waits: records it Met when `message` is the late
  // notifications/initialized (true: the message is taken).
  bool take_owed_initialized(const ClientMessage& message);

 private:
  // Records the owed handshake check: the handshake's text, `what`, why the script went on.
  void settle_owed(Outcome outcome, const std::string& what);
  void record_for_step(std::size_t step, const CheckDef& check, Outcome outcome,
                       std::string expected, std::string actual, std::vector<double> latency = {},
                       Json details = Json::object(), bool implicit = false);

  struct Deferred {
    std::size_t step = 0;
    std::function<void()> settle;
  };

  Transcript& transcript_;
  ScriptCursor& script_;
  std::vector<Deferred> deferred_;
  std::optional<OwedInitialized> owed_;
};

}  // namespace mcpping
