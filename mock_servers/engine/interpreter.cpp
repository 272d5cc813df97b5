// The run loop: each typed step in turn, the stop when one fails, then serving the default way.
#include "engine/interpreter.hpp"

#include <unistd.h>

#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "engine/default_server.hpp"
#include "engine/run.hpp"

namespace mcpping {

struct Interpreter::Impl {
  Impl(const Json& resolved_, ParsedScript script_, Channel& channel, Transcript& transcript)
      : resolved(resolved_), script(std::move(script_)), run(resolved_, channel, transcript) {
    for (const auto& step : script.steps) run.steps.push_back(step.step.get());
  }

  const Json resolved;
  const ParsedScript script;
  Run run;

  // After a stop: the requests the script captured but will now never answer get the
  // default answer, so the client can finish cleanly.
  void answer_captured() {
    for (const auto& [name, msg] : run.captures) {
      if (run.responded.count(name) || !is_request(msg)) continue;
      run.responded.insert(name);
      if (auto answer = default_answer(msg, run.defaults, run.client.era())) run.send_one(*answer);
    }
  }

  std::string serve() {
    auto& client = run.client;
    client.serving = true;
    if (client.client_gone) {
      run.transcript.event("the client ended its session before the script was done");
      return finish(Pump::Eof);
    }
    while (!client.inbox.empty()) {
      auto msg = std::move(client.inbox.front());
      client.inbox.pop_front();
      if (auto answer = default_answer(msg.json, run.defaults, run.client.era()))
        run.send_one(*answer);
    }
    return finish(run.pump(run.case_deadline, nullptr));
  }

  std::string finish(Pump why) {
    std::string reason = "eof";
    if (run.startup_exceeded) {
      reason = "deadline";  // said when it passed
    } else if (why == Pump::CaseDeadline || why == Pump::Deadline) {
      run.transcript.event("the case deadline (" + format_ms(run.timeout("case_deadline_ms")) +
                           " ms) passed");
      reason = "deadline";
    } else if (why == Pump::Interrupted) {
      run.transcript.event("interrupted by the host");
      reason = "interrupted";
    }
    run.settle_deferred();
    run.transcript.end(reason);
    return reason;
  }

  std::string run_script() {
    run.start_clock(Clock::now());
    run.transcript.start(static_cast<long>(::getpid()), resolved["scenario"].get<std::string>(),
                         resolved["transport"].get<std::string>(),
                         resolved["revision"].get<std::string>());
    auto& i = run.step_index;
    for (i = 0; i < script.steps.size(); ++i) {
      const auto& step = script.steps[i];
      const auto result = step.step->run(run);
      if (result == StepResult::Abort) {
        run.transcript.event("script stopped at step " + std::to_string(i) + ": " +
                                 (run.abort_reason == Pump::Interrupted ? "interrupted"
                                  : run.startup_exceeded                ? "the client did not start"
                                                                        : "case deadline"),
                             {{"step", i}});
        return finish(run.abort_reason);
      }
      if (result == StepResult::Failed) {
        run.transcript.event(
            "script stopped at step " + std::to_string(i) + " (" + std::string(step.action) +
                "): " + run.stop_reason +
                "; later checks are not reached; answering the default way from now on",
            {{"step", i}, {"stopped", true}, {"why", run.stop_reason}});
        answer_captured();
        break;
      }
    }
    i = script.steps.size();
    if (run.output_closed) return shut_down();
    return serve();
  }

  // A server that closed its output is shutting down (lifecycle: it "MAY initiate shutdown
  // by closing its output stream to the client and exiting"). It records what the client
  // still sends for a quiet window, then exits, so that a client watching the process rather
  // than end of file sees it go.
  std::string shut_down() {
    const auto why = run.pump(Clock::now() + from_ms(run.timeout("quiet_ms")), nullptr);
    if (why == Pump::Interrupted || why == Pump::CaseDeadline) return finish(why);
    run.transcript.event("the script closed the server's output; the server exits");
    run.settle_deferred();
    run.transcript.end("output closed");
    return "output closed";
  }
};

Interpreter::Interpreter(const Json& resolved, Channel& channel, Transcript& transcript)
    : Interpreter(resolved, parse_resolved_script(resolved, "resolved script"), channel,
                  transcript) {}

Interpreter::Interpreter(const Json& resolved, ParsedScript script, Channel& channel,
                         Transcript& transcript)
    : impl_(std::make_unique<Impl>(resolved, std::move(script), channel, transcript)) {}

Interpreter::~Interpreter() = default;

std::string Interpreter::run() { return impl_->run_script(); }

}  // namespace mcpping
