// handshake: initialize, its answer, notifications/initialized.
//
// A lenient server: when notifications/initialized does not come, the script goes on after the
// quiet window (or at the client's first request) and the handshake check waits for it to the
// end of the run (Run::owed_initialized), so a client that skips it still has its other checks
// judged (docs/verdicts.md, "Isolation").
#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "engine/default_server.hpp"
#include "engine/run.hpp"
#include "engine/steps/step_kinds.hpp"

namespace mcpping::steps {

namespace {

bool is_initialized(const Json& message) {
  return is_notification(message) && method_of(message) == "notifications/initialized";
}

struct Handshake final : Step {
  StepResult run(Run& run) const override {
    const auto check = handshake_check();
    const auto within = run.timeout("expect_ms");
    const auto* expected = kHandshakeExpected;
    const auto t0 = Clock::now();
    Pump why = Pump::Deadline;
    auto init = run.client.await_message(Json{{"method", "initialize"}, {"id", {{"$any", true}}}},
                                         t0 + from_ms(within), why);
    if (!init) {
      if (why == Pump::Interrupted) return run.after_wait(why);  // not reached
      run.record(check, Outcome::Broken, expected,
                 "no initialize: " + run.client.no_message_text(why, within, t0));
      run.stop_reason = "no initialize request";
      return run.after_wait(why);
    }
    run.captures["initialize"] = init->json;
    run.responded.insert("initialize");
    const auto init_ms = std::max(0.0, elapsed_ms(t0, init->at));
    const auto result = initialize_result(init->json, run.defaults);
    if (!run.send_one(make_result(init->json["id"], result))) {
      run.record(check, Outcome::Broken, expected, "the initialize response could not be written");
      return run.fail("write failed");
    }
    const auto offered = init->json.contains("params") && init->json["params"].is_object() &&
                                 init->json["params"].contains("protocolVersion")
                             ? safe_dump(init->json["params"]["protocolVersion"])
                             : std::string("none");
    const auto init_text =
        "initialize (protocolVersion " + offered + ") after " + format_ms(init_ms) + " ms";

    const auto t1 = Clock::now();
    std::optional<ClientMessage> initialized;
    std::vector<ClientMessage> held;  // what the client sent first, for the script, in order
    std::optional<std::string> first_request;  // a request other than ping that came first
    while (!initialized && !first_request) {
      std::optional<ClientMessage> got;
      why = run.pump(t1 + from_ms(run.timeout("quiet_ms")), [&](const ClientMessage& m) {
        if (m.json.is_null() || is_response(m.json)) return false;
        got = m;
        return true;
      });
      if (!got) break;
      if (is_initialized(got->json)) {
        initialized = std::move(got);
        continue;
      }
      held.push_back(std::move(*got));
      // Pings may precede it (lifecycle); any other request means the client has moved on.
      if (is_request(held.back().json) && method_of(held.back().json) != "ping")
        first_request = method_of(held.back().json);
    }
    for (auto& message : held) run.client.inbox.push_back(std::move(message));

    if (initialized) {
      run.record(check, Outcome::Met, expected,
                 init_text + "; notifications/initialized " +
                     format_ms(std::max(0.0, elapsed_ms(t1, initialized->at))) +
                     " ms after the response");
      return StepResult::Ok;
    }
    if (why == Pump::Interrupted) return run.after_wait(why);  // not reached
    if (why == Pump::Eof || why == Pump::CaseDeadline) {
      run.record(check, Outcome::Broken, expected,
                 init_text + "; no notifications/initialized: " +
                     run.client.no_message_text(why, run.timeout("quiet_ms"), t1));
      run.stop_reason = "no notifications/initialized";
      return run.after_wait(why);
    }
    const std::string moved_on =
        first_request ? "the client sent " + *first_request + " first"
                      : "nothing within " + format_ms(run.timeout("quiet_ms")) + " ms";
    run.owed_initialized = OwedInitialized{init_text, moved_on, t1, run.step_index};
    run.transcript.event("no notifications/initialized yet (" + moved_on +
                             "): going on, as a lenient server does; the handshake check waits "
                             "for it to the end of the run",
                         {{"step", run.step_index}});
    return StepResult::Ok;
  }
};

}  // namespace

std::unique_ptr<Step> parse_handshake(StepParser& p) {
  p.empty_arg();
  p.declare_check(handshake_check());
  p.capture("initialize");
  return std::make_unique<Handshake>();
}

}  // namespace mcpping::steps
