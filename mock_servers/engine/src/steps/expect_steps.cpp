// Waiting for client messages: expect, expect_none, await_get_stream, observe_client_pings.
#include "conversation.hpp"
#include "core/check_registry.hpp"
#include "core/jsonrpc.hpp"
#include "core/pattern.hpp"
#include "core/text.hpp"
#include "engine/default_server.hpp"
#include "step_parser.hpp"

namespace mcpping::steps {

namespace {

struct Expect final : Step {
  Json pattern;
  std::optional<std::string> as;
  std::string within;
  CheckDef check;
  // The request's id must be one the client never used before in the session ("The request
  // ID MUST NOT have been previously used by the requestor within the same session").
  bool fresh_id = false;
  // Names the message taken for checks' `given`: an event records it when it came (the
  // client's next ping after a timeout is the premise of what it gets back).
  std::optional<std::string> label;
  // The shape the message taken must have, recorded apart by `form_check` (the message is kept
  // either way, so a malformed request is still answered and what follows still recorded).
  std::optional<Json> form;
  std::optional<CheckDef> form_check;

  // The earlier request of the session that used `msg`'s id, in words; nullopt when none did.
  static std::optional<std::string> used_before(const ClientMessage& msg,
                                                const ClientInbox& inbox) {
    const auto& ids = inbox.request_ids();
    for (std::size_t i = 0; i < msg.request_index && i < ids.size(); ++i) {
      if (msg.json.contains("id") && same_json(ids[i].first, msg.json["id"]))
        return "id " + safe_dump(ids[i].first) + " was already used by the client's " +
               ids[i].second + " (its request " + std::to_string(i + 1) + " of the session)";
    }
    return std::nullopt;
  }

  StepResult run(Conversation& conv) const override {
    const auto within_ms = conv.timeout(within);
    const auto expected = "a client message matching " + safe_dump(pattern) + " within " +
                          format_ms(within_ms) + " ms";
    const auto t0 = Clock::now();
    Pump why = Pump::Deadline;
    auto msg = conv.inbox().await_message(pattern, t0 + from_ms(within_ms), why);
    if (!msg) {
      // Stopped by the host once the driver had exited: not reached, not broken.
      if (why == Pump::Interrupted) return conv.after_wait(why);
      conv.record(check, Outcome::Broken, expected,
                  conv.inbox().no_message_text(why, within_ms, t0));
      // Only a missing MUST message stops the script: a SHOULD, MAY or INFO check records its
      // absence and the case goes on to what it is about (a later step that needs the capture
      // stops it then).
      if (!miss_stops_script(check) && why == Pump::Deadline) return StepResult::Ok;
      return conv.after_wait(why, "expected message did not arrive");
    }
    if (as) conv.script().captures()[*as] = msg->json;
    if (label)
      conv.transcript().event("the client sent \"" + *label + "\": " + describe_message(msg->json),
                              {{"fired", *label}});
    const auto waited = std::max(0.0, elapsed_ms(t0, msg->at));
    const auto seen = describe_message(msg->json) + " after " + format_ms(waited) + " ms";
    if (form_check) {
      std::string why;
      const bool formed = matches(*form, msg->json, conv.script().captures(), &why);
      conv.record(*form_check, formed ? Outcome::Met : Outcome::Broken,
                  "the message matches " + safe_dump(*form),
                  shorten(safe_dump(msg->json), 200) + (formed ? "" : ": " + why));
    }
    if (!fresh_id) {
      conv.record(check, Outcome::Met, expected, seen);
    } else if (const auto reused = used_before(*msg, conv.inbox())) {
      conv.record(check, Outcome::Broken, expected + ", with an id not used before",
                  seen + "; " + *reused);
    } else {
      conv.record(check, Outcome::Met, expected + ", with an id not used before",
                  seen + "; its id is new among the session's " +
                      std::to_string(msg->request_index) + " earlier request(s)");
    }
    return StepResult::Ok;
  }

  // By its pattern's method alone: the rest may name captures not taken yet.
  bool takes(const std::string& method, const Captures& captures) const override {
    const auto it = pattern.find("method");
    return it == pattern.end() || matches(*it, Json(method), captures);
  }
};

struct ExpectNone final : Step {
  Json pattern;
  std::string window;
  CheckDef check;

  const std::string* fixed_wait() const override { return &window; }

  StepResult run(Conversation& conv) const override {
    const auto window_ms = conv.timeout(window);
    const auto t0 = Clock::now();
    std::vector<std::string> seen;
    const auto why = conv.inbox().pump(t0 + from_ms(window_ms), [&](const ClientMessage& m) {
      if (matches(pattern, m.json, conv.script().captures())) {
        seen.push_back(describe_message(m.json) + " after " + format_ms(elapsed_ms(t0, m.at)) +
                       " ms");
      }
      return false;
    });
    const auto expected = "no client message matching " + safe_dump(pattern) + " within " +
                          format_ms(window_ms) + " ms";
    const auto actual = seen.empty()
                            ? "none within " + format_ms(elapsed_ms(t0, Clock::now())) + " ms"
                            : std::to_string(seen.size()) + " matching: " + seen.front() +
                                  (seen.size() > 1 ? " | ..." : "");
    conv.record(check, seen.empty() ? Outcome::Met : Outcome::Broken, expected, actual);
    return conv.go_on(why);
  }
};

struct ObserveClientPings final : Step {
  std::string window;
  CheckDef check;

  const std::string* fixed_wait() const override { return &window; }

  StepResult run(Conversation& conv) const override {
    const auto window_ms = conv.timeout(window);
    const auto t0 = Clock::now();
    const auto end = t0 + from_ms(window_ms);
    std::vector<double> at;
    const Claim take_pings = [&](const ClientMessage& m) {
      if (!is_request(m.json) || method_of(m.json) != "ping") return false;
      at.push_back(round3(elapsed_ms(t0, m.at)));
      conv.send_one(make_result(m.json["id"], Json::object()));
      return true;
    };
    Pump why = Pump::Stopped;
    while (why == Pump::Stopped) why = conv.inbox().pump(end, take_pings);
    std::string actual =
        std::to_string(at.size()) + " client ping(s) in " + format_ms(window_ms) + " ms";
    std::vector<double> intervals;
    for (std::size_t i = 1; i < at.size(); ++i) intervals.push_back(round3(at[i] - at[i - 1]));
    const auto list = [&](const char* name, const std::vector<double>& times) {
      if (times.empty()) return;
      actual += name;
      for (auto t : times) actual += " " + format_ms(t);
      actual += " ms";
    };
    list(", at", at);
    list("; intervals", intervals);
    conv.record(check, at.empty() ? Outcome::Broken : Outcome::Met,
                "client pings while the server stays quiet for " + format_ms(window_ms) + " ms",
                actual, {}, {{"pings_at_ms", at}, {"intervals_ms", intervals}});
    return conv.go_on(why);
  }
};

// The client MAY open the listening stream: if it does not, the case has nothing to record on
// this client (UNSUPPORTED), which is no failure.
struct AwaitGetStream final : Step {
  std::string within;

  StepResult run(Conversation& conv) const override {
    const auto within_ms = conv.timeout(within);
    const auto t0 = Clock::now();
    const auto why = conv.inbox().await_event("get-stream-opened", t0 + from_ms(within_ms),
                                              [&] { return conv.inbox().get_stream_open(); });
    if (conv.inbox().get_stream_open()) {
      conv.transcript().event("the client's GET stream is open (waited " +
                              format_ms(elapsed_ms(t0, Clock::now())) + " ms)");
      return StepResult::Ok;
    }
    if (why == Pump::CaseDeadline || why == Pump::Interrupted) return conv.after_wait(why);
    conv.transcript().unsupported("the client did not open the GET listening stream within " +
                                  format_ms(within_ms) + " ms (clients MAY open it)");
    return conv.fail("no GET stream: the case is unsupported for this client");
  }
};

}  // namespace

std::unique_ptr<Step> parse_expect(StepParser& p) {
  auto s = std::make_unique<Expect>();
  s->pattern = p.pattern(p.object_arg(), p.arg_pointer());
  s->within = p.timeout("within", "expect_ms");
  s->check = p.check("check");
  s->as = p.name("as");
  if (s->as) p.capture(*s->as);
  s->label = p.define_label("label", true);
  if (p.has("form") != p.has("form_check"))
    p.fail(p.pointer(p.has("form") ? "form" : "form_check"),
           "\"form\" and \"form_check\" come together");
  if (p.has("form")) {
    s->form = p.pattern(p.step()["form"], p.pointer("form"));
    s->form_check = p.optional_check("form_check");
  }
  if (p.has("fresh_id")) s->fresh_id = p.boolean(p.step()["fresh_id"], p.pointer("fresh_id"));
  return s;
}

std::unique_ptr<Step> parse_expect_none(StepParser& p) {
  auto s = std::make_unique<ExpectNone>();
  s->pattern = p.pattern(p.object_arg(), p.arg_pointer());
  s->window = p.timeout("window", "quiet_ms");
  s->check = p.check("check");
  return s;
}

std::unique_ptr<Step> parse_observe_client_pings(StepParser& p) {
  auto s = std::make_unique<ObserveClientPings>();
  p.empty_arg();
  s->window = p.timeout("window", "observe_ms");
  s->check = p.check("check");
  return s;
}

std::unique_ptr<Step> parse_await_get_stream(StepParser& p) {
  auto s = std::make_unique<AwaitGetStream>();
  p.empty_arg();
  s->within = p.timeout("within", "expect_ms");
  return s;
}

}  // namespace mcpping::steps
