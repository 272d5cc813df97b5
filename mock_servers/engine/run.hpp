// What one run of a script holds and the services step handlers use: sending, recording
// checks, captures, labels, timeouts, routes and stop reasons.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "core/pattern.hpp"
#include "core/scenario.hpp"
#include "engine/channel.hpp"
#include "engine/client_inbox.hpp"
#include "engine/default_server.hpp"
#include "engine/id_match.hpp"
#include "engine/step.hpp"
#include "engine/timer_lateness.hpp"
#include "engine/transcript.hpp"

namespace mcpping {

using Json = nlohmann::json;

double elapsed_ms(Clock::time_point from, Clock::time_point to);
Clock::duration from_ms(double ms);
double round3(double ms);  // to the microsecond

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

class Run {
 public:
  // `resolved` must have passed parse_resolved_script(); `script_size` is its step count.
  Run(const Json& resolved, Channel& channel, Transcript& transcript);

  Channel& channel;
  Transcript& transcript;
  ServerDefaults defaults;  // the handshake adds the capabilities its case declares
  TimeoutTable timeouts;
  std::size_t line_cap = 0;
  std::size_t script_size = 0;
  // Time starts at first contact (docs/verdicts.md, "Timeouts"): until the client's first
  // line, byte or request only the start-up budget runs (`startup_ms`, a slow start is the
  // machine's); from it, the case deadline and every window of the step waiting then.
  Clock::time_point case_deadline;
  Clock::time_point startup_deadline;
  std::optional<Clock::time_point> first_contact;
  bool startup_exceeded = false;

  std::vector<const Step*> steps;  // the script, for later_step_takes()
  Captures captures;
  std::map<std::string, std::vector<SentFrame>> labels;  // frames sent under each label
  std::vector<SentFrame> all_sent;
  std::set<std::string> responded;  // capture names the script answered
  ClientInbox client;
  bool output_closed = false;
  std::size_t step_index = 0;
  Pump abort_reason = Pump::Deadline;
  std::string stop_reason;
  std::optional<OwedInitialized> owed_initialized;
  TimerLateness timers;  // how late this process's timers fire, sampled all along

  // Whether a step after the current one may take a client request of `method`: such a
  // request waits in the inbox for it instead of getting the default service
  // (docs/scenario-format.md, "Default service"). The current step has seen it already.
  bool later_step_takes(const std::string& method) const;

  // The clock at the start of the script: the start-up budget runs from `now`.
  void start_clock(Clock::time_point now);
  // The client's first line, byte or request, at `at`: the case deadline runs from it.
  void contact(Clock::time_point at);
  // The start-up budget passed without contact: recorded once.
  void exceed_startup();

  // How late this process's timers fired between `from` and `to`, when later than
  // kOverloadedTimersMs: a timing check judged over that window is not judged
  // (docs/verdicts.md, "Timeouts").
  std::optional<double> overloaded_between(Clock::time_point from, Clock::time_point to) const;

  // A timeout of the table by name, in ms.
  double timeout(const std::string& name) const { return timeouts.at(name); }

  // Records an observation for `check`, attributed to the current step.
  void record(const CheckDef& check, Outcome outcome, std::string expected, std::string actual,
              std::vector<double> latency = {}, Json details = Json::object());
  // While the handshake's check waits: records it Met when `message` is the late
  // notifications/initialized (true: the message is taken).
  bool take_owed_initialized(const ClientMessage& message);
  // A check judged once the run is over, over everything the client sent by then: a reply
  // to a notification, a second pong or a success answer to a malformed id still counts
  // when it comes late, and no fixed wait holds up the script (docs/verdicts.md, "Watched
  // to the end"). `settle` records the check; it runs attributed to the current step.
  void defer(std::function<void(Run&)> settle);
  // Settles the owed handshake and every deferred check, in the order they were deferred:
  // at the end of the run, or once nothing more can arrive (close_stdin).
  void settle_deferred();
  // The mock server's own check, recorded only when violated.
  void record_implicit(const CheckDef& check, std::string expected, std::string actual);
  // The session's protocol version is settled (an initialize answered, a modern probe): the
  // client inbox and the runner's revision gating read it from here and from the transcript
  // (an `event` with `negotiated`). `how` is said in parentheses when not empty.
  void negotiated(const std::string& version, const std::string& how = {});

  // Sends frames (recorded, kept under `label`); false when a write failed (recorded).
  bool send_messages(const std::vector<Json>& frames, const SendOptions& options,
                     const std::string* label = nullptr);
  // Sends the frames as one JSON-RPC batch, one array in one message; each element is kept
  // under `label` as a frame of its own, so expect_response judges each.
  bool send_batch(const std::vector<Json>& frames, const SendOptions& options,
                  const std::string* label = nullptr);
  bool send_one(const Json& frame, const std::string& route = {});

  Pump pump(Clock::time_point deadline, const Claim& claim) { return client.pump(deadline, claim); }

  // The step's "on" as the host resolves it: "post:NAME" names a capture, the host knows the
  // POST by the JSON-RPC id of the request it carried. nullopt (recorded, stop reason set)
  // when the capture has no id.
  std::optional<std::string> route_of(const std::string& on);

  // Stops the script with `reason`.
  StepResult fail(std::string reason) {
    stop_reason = std::move(reason);
    return StepResult::Failed;
  }
  // After a wait that did not get what the step needed: Abort for the case deadline or an
  // interruption, else Failed.
  StepResult after_wait(Pump why);
  // After a wait whose step records its verdict and goes on: Abort for the case deadline or
  // an interruption, else Ok.
  StepResult go_on(Pump why) {
    return why == Pump::CaseDeadline || why == Pump::Interrupted ? after_wait(why) : StepResult::Ok;
  }

 private:
  // At the end of the run: records the handshake Broken if it still waits.
  void settle_owed_initialized();

  struct Deferred {
    std::size_t step = 0;
    std::function<void(Run&)> settle;
  };
  std::vector<Deferred> deferred_;

  void record_for_step(std::size_t step, const CheckDef& check, Outcome outcome,
                       std::string expected, std::string actual, std::vector<double> latency = {},
                       Json details = Json::object());
};

}  // namespace mcpping
