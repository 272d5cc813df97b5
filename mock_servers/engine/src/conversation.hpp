// One case's exchange with the client under test, as the step handlers see it. It owns the
// parts that each do one job (the clock, the script's position and captures, the recorder,
// the sender, the client inbox) and says what stopped the script.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "case_clock.hpp"
#include "client_inbox.hpp"
#include "core/check.hpp"
#include "core/scenario.hpp"
#include "engine/channel.hpp"
#include "engine/default_server.hpp"
#include "engine/script.hpp"
#include "engine/step.hpp"
#include "engine/transcript.hpp"
#include "recorder.hpp"
#include "script_cursor.hpp"
#include "sender.hpp"

namespace mcpping {

using Json = nlohmann::json;

class Conversation {
 public:
  // `resolved` must have passed parse_resolved_script(); `script` is its parse.
  Conversation(const Json& resolved, const ParsedScript& script, Channel& channel,
               Transcript& transcript);
  Conversation(const Conversation&) = delete;
  Conversation& operator=(const Conversation&) = delete;

  Channel& channel() { return channel_; }
  Transcript& transcript() { return transcript_; }
  // What the default service answers; the handshake adds the capabilities its case declares.
  ServerDefaults& defaults() { return defaults_; }
  CaseClock& clock() { return clock_; }
  ScriptCursor& script() { return script_; }
  Recorder& recorder() { return recorder_; }
  Sender& sender() { return sender_; }
  ClientInbox& inbox() { return inbox_; }

  // A timeout of the table by name, in ms.
  double timeout(const std::string& name) const { return timeouts_.at(name); }

  void record(const CheckDef& check, Outcome outcome, std::string expected, std::string actual,
              std::vector<double> latency = {}, Json details = Json::object()) {
    recorder_.record(check, outcome, std::move(expected), std::move(actual), std::move(latency),
                     std::move(details));
  }
  // The session's protocol version is settled (an initialize answered, a modern probe): the
  // client inbox and the runner's revision gating read it from here and from the transcript
  // (an `event` with `negotiated`). `how` is said in parentheses when not empty.
  void negotiated(const std::string& version, const std::string& how = {});

  // The Sender's, with the client requests that came before; `batch`: as one JSON-RPC batch.
  bool send(const std::vector<Json>& frames, const SendOptions& options, const std::string* label,
            bool batch = false) {
    return sender_.send(frames, options, label, inbox_.client_requests(), batch);
  }
  bool send_one(const Json& frame) { return sender_.send_one(frame, inbox_.client_requests()); }
  // Captures `request` as `as` and `result` as `<as>_result`, and sends the answer.
  bool answer(const std::string& as, const Json& request, const Json& result);

  // The step's "on" as the host resolves it: "post:NAME" names a capture, the host knows the
  // POST by the JSON-RPC id of the request it carried. nullopt (recorded, stop reason set)
  // when the capture has no id.
  std::optional<std::string> route_of(const std::string& on);

  StepResult fail(std::string reason) {
    stop_reason_ = std::move(reason);
    return StepResult::Failed;
  }
  // After a wait that did not get what the step needed: Abort for the case deadline or an
  // interruption, else Failed (with `reason`, when given, as the stop reason).
  StepResult after_wait(Pump why, std::string reason = {});
  // After a wait whose step records what it saw and goes on: Abort for the case deadline or
  // an interruption, else Ok.
  StepResult go_on(Pump why) {
    return why == Pump::CaseDeadline || why == Pump::Interrupted ? after_wait(why) : StepResult::Ok;
  }
  const std::string& stop_reason() const { return stop_reason_; }
  Pump abort_reason() const { return abort_reason_; }

 private:
  Channel& channel_;
  Transcript& transcript_;
  ServerDefaults defaults_;
  TimeoutTable timeouts_;
  ScriptCursor script_;
  CaseClock clock_;
  Recorder recorder_;
  Sender sender_;
  ClientInbox inbox_;
  Pump abort_reason_ = Pump::Deadline;
  std::string stop_reason_;
};

}  // namespace mcpping
