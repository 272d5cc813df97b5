// handshake: initialize, its answer, notifications/initialized.
//
// A lenient server: the first initialize is waited for until the case deadline (the lifecycle
// puts no bound on it; a client that starts slowly on a loaded machine still has its case
// recorded), and when notifications/initialized does not come, the script goes on after the
// quiet window (or at the client's first request) and the handshake check waits for it to the
// end of the run (Recorder::owe_initialized), so a client that skips it still has its other checks
// recorded (docs/verdicts.md, "Isolation").
//
// A later handshake (a new session, e.g. after a 404 ended the first one) carries a check of
// its own: met when an initialize without Mcp-Session-Id arrives within `within`. Its
// notifications/initialized is waited for the same way, but only the first handshake records
// it (the lifecycle check is `handshake`).
#include "conversation.hpp"
#include "core/check_registry.hpp"
#include "core/jsonrpc.hpp"
#include "core/scenario.hpp"
#include "core/text.hpp"
#include "engine/default_server.hpp"
#include "step_parser.hpp"

namespace mcpping::steps {

namespace {

bool is_initialized(const Json& message) {
  return is_notification(message) && method_of(message) == "notifications/initialized";
}

// The Mcp-Session-Id an HTTP request carried, or "" (stdio, or none sent).
std::string session_header(const ClientMessage& message) {
  const auto& meta = message.meta;
  if (!meta.is_object() || !meta.contains("headers") || !meta["headers"].is_object()) return {};
  const auto& headers = meta["headers"];
  const auto it = headers.find("mcp-session-id");
  return it != headers.end() && it->is_string() ? it->get<std::string>() : std::string();
}

struct Handshake final : Step {
  std::string as = "initialize";      // the capture of the request; `<as>_result` its result
  std::string within;                 // the wait for initialize (default in parse_handshake)
  std::optional<CheckDef> own_check;  // a later handshake's check; else `handshake`
  Json capabilities;  // merged into the default server's (a case that logs declares logging)

  StepResult run(Conversation& conv) const override {
    const auto check = own_check.value_or(builtin_check("handshake"));
    const auto within_ms = conv.timeout(within);
    const std::string expected = own_check
                                     ? "a new initialize request without Mcp-Session-Id within " +
                                           format_ms(within_ms) + " ms"
                                     : std::string(builtin_expected("handshake"));
    const auto t0 = Clock::now();
    Pump why = Pump::Deadline;
    auto init = conv.inbox().await_message(Json{{"method", "initialize"}, {"id", {{"$any", true}}}},
                                           t0 + from_ms(within_ms), why);
    if (!init) {
      if (why == Pump::Interrupted) return conv.after_wait(why);  // not reached
      conv.record(check, Outcome::Broken, expected,
                  "no initialize: " + conv.inbox().no_message_text(why, within_ms, t0));
      return conv.after_wait(why, "no initialize request");
    }
    const auto init_ms = std::max(0.0, elapsed_ms(t0, init->at));
    std::string init_text;
    if (!answer_initialize(conv, *init, init_ms, init_text)) {
      conv.record(check, Outcome::Broken, expected, "the initialize response could not be written");
      return conv.fail("write failed");
    }
    // A new session starts without the previous session's id (Streamable HTTP).
    const auto carried = session_header(*init);
    if (own_check) {
      conv.record(check, carried.empty() ? Outcome::Met : Outcome::Broken, expected,
                  init_text + (carried.empty()
                                   ? ", without Mcp-Session-Id"
                                   : ", carrying Mcp-Session-Id \"" + shorten(carried, 80) + "\""));
    }
    const auto t1 = Clock::now();
    const auto after = await_initialized(conv, t1);
    if (own_check) return settle_later_initialized(conv, after);
    return settle_initialized(conv, check, expected, init_text, t1, after, session_of(*init));
  }

  // Answers `init` (received `init_ms` after the step began) and notes what it offered and
  // what was negotiated; `init_text` says so for the checks. False when the answer could not
  // be written.
  bool answer_initialize(Conversation& conv, const ClientMessage& init, double init_ms,
                         std::string& init_text) const {
    if (!own_check && init_ms > conv.timeout("expect_ms")) {
      conv.transcript().event(
          "a slow start: initialize after " + format_ms(init_ms) + " ms, later than expect_ms (" +
              format_ms(conv.timeout("expect_ms")) +
              " ms); taken, as a real server takes it (the lifecycle sets no bound)",
          {{"step", conv.script().index()}});
    }
    auto result = initialize_result(init.json, conv.defaults());
    if (capabilities.is_object()) {
      result["capabilities"].update(capabilities);
      conv.defaults().capabilities = result["capabilities"];  // what the default service answers
    }
    if (!conv.answer(as, init.json, result)) return false;
    const auto negotiated = result["protocolVersion"].get<std::string>();
    conv.negotiated(negotiated);
    const auto params = init.json.find("params");
    const bool has_offer =
        params != init.json.end() && params->is_object() && params->contains("protocolVersion");
    const Json offered = has_offer ? (*params)["protocolVersion"] : Json();
    init_text = "initialize (protocolVersion " +
                (has_offer ? safe_dump(offered) : std::string("none")) + ") after " +
                format_ms(init_ms) + " ms";
    // A revision the transport does not exist in: answered with the nearest one it does.
    if (offered.is_string()) {
      if (const auto absent =
              transport_absent_at(conv.defaults().transport, offered.get<std::string>())) {
        conv.recorder().record_implicit(
            builtin_check("transport:revision"),
            std::string(builtin_expected("transport:revision")),
            init_text + ": " + *absent + "; the server answered " + negotiated);
      }
    }
    return true;
  }

  // What followed the initialize response (from `t1`): notifications/initialized, or the
  // first request other than ping that came instead, within the quiet window. What came
  // before either stays in the inbox for the script, in order.
  struct AfterInitialize {
    std::optional<ClientMessage> initialized;
    std::optional<std::string> first_request;
    Pump why = Pump::Deadline;
  };

  static AfterInitialize await_initialized(Conversation& conv, Clock::time_point t1) {
    AfterInitialize after;
    std::vector<ClientMessage> held;
    while (!after.initialized && !after.first_request) {
      std::optional<ClientMessage> got;
      after.why =
          conv.inbox().pump(t1 + from_ms(conv.timeout("quiet_ms")), [&](const ClientMessage& m) {
            if (m.json.is_null() || is_response(m.json)) return false;
            got = m;
            return true;
          });
      if (!got) break;
      if (is_initialized(got->json)) {
        after.initialized = std::move(got);
        continue;
      }
      held.push_back(std::move(*got));
      // Pings may precede it (lifecycle); any other request means the client has moved on.
      if (is_request(held.back().json) && method_of(held.back().json) != "ping")
        after.first_request = method_of(held.back().json);
    }
    for (auto& message : held) conv.inbox().put_back(std::move(message));
    return after;
  }

  // The first handshake's check: met by notifications/initialized; broken when the client
  // ended or the case deadline came first; otherwise owed, the script going on.
  static StepResult settle_initialized(Conversation& conv, const CheckDef& check,
                                       const std::string& expected, const std::string& init_text,
                                       Clock::time_point t1, const AfterInitialize& after,
                                       const std::string& session) {
    if (after.initialized) {
      conv.record(check, Outcome::Met, expected,
                  init_text + "; notifications/initialized " +
                      format_ms(std::max(0.0, elapsed_ms(t1, after.initialized->at))) +
                      " ms after the response");
      return StepResult::Ok;
    }
    const Pump why = after.why;
    if (why == Pump::Interrupted) return conv.after_wait(why);  // not reached
    if (why == Pump::Eof || why == Pump::CaseDeadline) {
      conv.record(check, Outcome::Broken, expected,
                  init_text + "; no notifications/initialized: " +
                      conv.inbox().no_message_text(why, conv.timeout("quiet_ms"), t1));
      return conv.after_wait(why, "no notifications/initialized");
    }
    const std::string moved_on =
        after.first_request ? "the client sent " + *after.first_request + " first"
                            : "nothing within " + format_ms(conv.timeout("quiet_ms")) + " ms";
    conv.recorder().owe_initialized(
        OwedInitialized{init_text, moved_on, t1, conv.script().index(), session});
    conv.transcript().event("no notifications/initialized yet (" + moved_on +
                                "): going on, as a lenient server does; the handshake check waits "
                                "for it to the end of the run",
                            {{"step", conv.script().index()}});
    return StepResult::Ok;
  }

  // A later handshake's notifications/initialized is noted, not recorded: the first handshake's
  // check is the lifecycle's.
  static StepResult settle_later_initialized(Conversation& conv, const AfterInitialize& after) {
    // At end of input the steps after it see the end.
    if (after.initialized || after.why == Pump::Eof) return StepResult::Ok;
    if (after.why == Pump::Interrupted || after.why == Pump::CaseDeadline)
      return conv.after_wait(after.why);
    conv.transcript().event(
        "no notifications/initialized for the new session yet (" +
            (after.first_request ? "the client sent " + *after.first_request + " first"
                                 : std::string("nothing within the quiet window")) +
            "): going on",
        {{"step", conv.script().index()}});
    return StepResult::Ok;
  }
};

}  // namespace

std::unique_ptr<Step> parse_handshake(StepParser& p) {
  p.empty_arg();
  auto s = std::make_unique<Handshake>();
  s->as = p.name("as").value_or(s->as);
  s->own_check = p.optional_check("check");
  // The first initialize may come as late as the client likes (a slow start is the machine's,
  // not the client's); a later handshake's check is about a new session started in time.
  s->within = p.timeout("within", s->own_check ? "expect_ms" : "case_deadline_ms");
  if (p.has("capabilities")) {
    s->capabilities = p.step()["capabilities"];
    if (!s->capabilities.is_object()) p.fail(p.pointer("capabilities"), "must be an object");
  }
  // The reserved `handshake` check is the first handshake's; a second handshake without a
  // check of its own declares it again and is refused as a duplicate.
  if (!s->own_check) p.declare_check(builtin_check("handshake"));
  p.capture(s->as);
  p.capture(s->as + "_result");
  return s;
}

}  // namespace mcpping::steps
