// HTTP transports only: fail_next_post, expect_post (docs/http-mock-server.md).
#include <algorithm>

#include "core/jsonrpc.hpp"
#include "core/pattern.hpp"
#include "core/text.hpp"
#include "engine/run.hpp"
#include "engine/steps/step_kinds.hpp"

namespace mcpping::steps {

namespace {

struct FailNextPost final : Step {
  Json pattern;
  std::string with;  // "500", "404" or "reset"

  StepResult run(Run& run) const override {
    PostFault fault;
    fault.pattern = pattern;
    fault.captures = run.captures;
    fault.with = with;
    if (!run.channel.arm_post_fault(fault)) {
      run.transcript.event("this transport has no POSTs to fail");
      return run.fail("fail_next_post needs an HTTP transport");
    }
    run.transcript.event(
        "armed: the next client POST matching " + safe_dump(fault.pattern) + " gets " + fault.with,
        {{"fault", fault.with}});
    return StepResult::Ok;
  }
};

// Matches the HTTP facts of the POSTs that carried the client's responses to a label. With
// `preferred`, a POST that matches `http` but not `preferred` meets the check only in a
// degraded way (a MUST for the header, a SHOULD for its value).
struct ExpectPost final : Step {
  std::string label;
  Json pattern;
  std::optional<Json> preferred;
  std::string within;
  CheckDef check;

  StepResult run(Run& run) const override {
    const auto within_ms = run.timeout(within);
    std::vector<SentFrame> requests;
    for (const auto& sent : run.labels[label]) {
      if (sent.frame.contains("id")) requests.push_back(sent);
    }
    const auto expected = "the POST carrying the response to each request sent as \"" + label +
                          "\" matches " + safe_dump(pattern) +
                          (preferred ? ", and should match " + safe_dump(*preferred) : "");
    const auto& responses = run.client.responses;
    auto response_to = [&](const SentFrame& req) -> const ClientMessage* {
      for (const auto& r : responses) {
        if (r.json.contains("id") && r.at >= req.written &&
            match_id(req.frame["id"], r.json["id"]) != IdMatch::None)
          return &r;
      }
      return nullptr;
    };
    auto all_in = [&] {
      return std::all_of(requests.begin(), requests.end(),
                         [&](const SentFrame& r) { return response_to(r) != nullptr; });
    };
    Pump why = Pump::Stopped;
    if (!requests.empty() && !all_in()) {
      why = run.pump(Clock::now() + from_ms(within_ms),
                     [&](const ClientMessage& m) { return is_response(m.json) && all_in(); });
    }
    if (why == Pump::Interrupted && !all_in()) return run.after_wait(why);  // not reached
    Outcome outcome = requests.empty() ? Outcome::Broken : Outcome::Met;
    std::string actual =
        requests.empty() ? "nothing was sent under \"" + label + "\" with an id" : std::string();
    for (const auto& req : requests) {
      const auto* r = response_to(req);
      std::string text;
      if (!r) {
        outcome = Outcome::Broken;
        text = "no response to id " + safe_dump(req.frame["id"]) + " within " +
               format_ms(within_ms) + " ms";
      } else {
        std::string why_not;
        if (!matches(pattern, r->meta, run.captures, &why_not)) {
          outcome = Outcome::Broken;
          text = "id " + safe_dump(req.frame["id"]) + ": " + why_not + " in " +
                 shorten(safe_dump(r->meta), 240);
        } else if (preferred && !matches(*preferred, r->meta, run.captures, &why_not)) {
          if (outcome == Outcome::Met) outcome = Outcome::Degraded;
          text = "id " + safe_dump(req.frame["id"]) + ": degraded: " + why_not + " in " +
                 shorten(safe_dump(r->meta), 240);
        } else if (requests.size() == 1) {
          text = shorten(safe_dump(r->meta), 240);
        }
      }
      if (!text.empty()) actual += (actual.empty() ? "" : " | ") + text;
    }
    if (actual.empty()) actual = std::to_string(requests.size()) + " POST(s), each matching";
    run.record(check, outcome, expected, actual);
    return run.go_on(why);
  }
};

}  // namespace

std::unique_ptr<Step> parse_fail_next_post(StepParser& p) {
  auto s = std::make_unique<FailNextPost>();
  s->pattern = p.pattern(p.object_arg(), p.arg_pointer());
  const auto& with = p.member("with");
  if (with != Json(500) && with != Json(404) && with != Json("reset"))
    p.fail(p.pointer("with"), "must be 500, 404 or \"reset\"");
  s->with = with.is_string() ? with.get<std::string>() : std::to_string(with.get<int>());
  return s;
}

std::unique_ptr<Step> parse_expect_post(StepParser& p) {
  auto s = std::make_unique<ExpectPost>();
  s->label = p.known_label();
  s->pattern = p.pattern(p.reader().object(p.member("http"), p.pointer("http")), p.pointer("http"));
  if (p.has("preferred")) {
    s->preferred = p.pattern(p.reader().object(p.step()["preferred"], p.pointer("preferred")),
                             p.pointer("preferred"));
  }
  s->within = p.timeout("within", "pong_cap_ms");
  s->check = p.check("check");
  return s;
}

}  // namespace mcpping::steps
