// handshake: initialize, its answer, notifications/initialized.
#include "core/text.hpp"
#include "engine/default_server.hpp"
#include "engine/run.hpp"
#include "engine/steps/step_kinds.hpp"

namespace mcpping::steps {

namespace {

struct Handshake final : Step {
  StepResult run(Run& run) const override {
    const auto check = handshake_check();
    const auto within = run.timeout("expect_ms");
    const auto expected = "initialize request, then notifications/initialized, each within " +
                          format_ms(within) + " ms";
    const auto t0 = Clock::now();
    Pump why = Pump::Deadline;
    auto init = run.client.await_message(Json{{"method", "initialize"}, {"id", {{"$any", true}}}},
                                         t0 + from_ms(within), why);
    if (!init) {
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
    const auto t1 = Clock::now();
    auto initialized = run.client.await_message(
        Json{{"method", "notifications/initialized"}, {"id", {{"$absent", true}}}},
        t1 + from_ms(within), why);
    auto offered = init->json.contains("params") && init->json["params"].is_object() &&
                           init->json["params"].contains("protocolVersion")
                       ? safe_dump(init->json["params"]["protocolVersion"])
                       : std::string("none");
    const auto init_text =
        "initialize (protocolVersion " + offered + ") after " + format_ms(init_ms) + " ms";
    if (!initialized) {
      run.record(check, Outcome::Broken, expected,
                 init_text + "; no notifications/initialized: " +
                     run.client.no_message_text(why, within, t1));
      run.stop_reason = "no notifications/initialized";
      return run.after_wait(why);
    }
    run.record(check, Outcome::Met, expected,
               init_text + "; notifications/initialized " +
                   format_ms(std::max(0.0, elapsed_ms(t1, initialized->at))) +
                   " ms after the response");
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
