// The run loop: each typed step in turn, the stop when one fails, then serving the default way.
#include "engine/interpreter.hpp"

#include <unistd.h>

#include "conversation.hpp"
#include "core/jsonrpc.hpp"
#include "core/text.hpp"

namespace mcpping {

struct Interpreter::Impl {
  Impl(const Json& resolved_, ParsedScript script_, Channel& channel, Transcript& transcript)
      : resolved(resolved_),
        script(std::move(script_)),
        conv(resolved_, script, channel, transcript) {}

  const Json resolved;
  const ParsedScript script;
  Conversation conv;

  // After a stop: the requests the script captured but will now never answer get the
  // default answer, so the client can finish cleanly.
  void answer_captured() {
    auto& script = conv.script();
    for (const auto& [name, msg] : script.captures()) {
      if (script.was_answered(name) || !is_request(msg)) continue;
      script.answered(name);
      conv.inbox().answer_default(msg);
    }
  }

  std::string serve() {
    if (conv.inbox().client_gone()) {
      conv.transcript().event("the client ended its session before the script was done");
      return finish(Pump::Eof);
    }
    conv.inbox().serve_all();
    return finish(conv.inbox().pump(conv.clock().case_deadline(), nullptr));
  }

  std::string finish(Pump why) {
    std::string reason = "eof";
    if (conv.clock().startup_exceeded()) {
      reason = "deadline";  // said when it passed
    } else if (why == Pump::CaseDeadline || why == Pump::Deadline) {
      conv.transcript().event("the case deadline (" + format_ms(conv.timeout("case_deadline_ms")) +
                              " ms) passed");
      reason = "deadline";
    } else if (why == Pump::Interrupted) {
      conv.transcript().event("interrupted by the host");
      reason = "interrupted";
    }
    conv.recorder().settle_deferred();
    conv.transcript().end(reason);
    return reason;
  }

  std::string run_script() {
    conv.clock().start(Clock::now());
    conv.transcript().start(static_cast<long>(::getpid()), resolved["scenario"].get<std::string>(),
                            resolved["transport"].get<std::string>(),
                            resolved["revision"].get<std::string>());
    for (std::size_t i = 0; i < script.steps.size(); conv.script().move_to(++i)) {
      const auto& step = script.steps[i];
      const auto result = step.step->run(conv);
      if (result == StepResult::Abort) {
        conv.transcript().event("script stopped at step " + std::to_string(i) + ": " +
                                    (conv.abort_reason() == Pump::Interrupted ? "interrupted"
                                     : conv.clock().startup_exceeded() ? "the client did not start"
                                                                       : "case deadline"),
                                {{"step", i}});
        return finish(conv.abort_reason());
      }
      if (result == StepResult::Failed) {
        conv.transcript().event(
            "script stopped at step " + std::to_string(i) + " (" + std::string(step.action) +
                "): " + conv.stop_reason() +
                "; later checks are not reached; answering the default way from now on",
            {{"step", i}, {"stopped", true}, {"why", conv.stop_reason()}});
        answer_captured();
        break;
      }
    }
    conv.script().move_to(script.steps.size());
    if (conv.sender().output_closed()) return shut_down();
    return serve();
  }

  // A server that closed its output is shutting down (lifecycle: it "MAY initiate shutdown
  // by closing its output stream to the client and exiting"). It records what the client
  // still sends for a quiet window, then exits, so that a client watching the process rather
  // than end of file sees it go.
  std::string shut_down() {
    const auto why = conv.inbox().pump(Clock::now() + from_ms(conv.timeout("quiet_ms")), nullptr);
    if (why == Pump::Interrupted || why == Pump::CaseDeadline) return finish(why);
    conv.transcript().event("the script closed the server's output; the server exits");
    conv.recorder().settle_deferred();
    conv.transcript().end("output closed");
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
