// The client's responses to frames the server sent: expect_response, expect_error,
// expect_no_response.
#include <algorithm>
#include <optional>

#include "conversation.hpp"
#include "core/jsonrpc.hpp"
#include "core/latency.hpp"
#include "core/pattern.hpp"
#include "core/text.hpp"
#include "step_parser.hpp"

namespace mcpping::steps {

namespace {

// The client's responses, indexed by id once per recording: a burst's N pings find their
// answers by lookup, not each by a scan of every response.
class ClientAnswers {
 public:
  explicit ClientAnswers(const std::vector<ClientMessage>& responses) : responses_(responses) {
    for (std::size_t i = 0; i < responses.size(); ++i)
      if (responses[i].json.contains("id")) index_.add(responses[i].json["id"], i);
  }

  // The responses to `req`, in order, with how each id matched; a response from before the
  // request was written cannot answer it.
  std::vector<std::pair<const ClientMessage*, IdMatch>> to(const SentFrame& req) const {
    std::vector<std::pair<const ClientMessage*, IdMatch>> got;
    for (const auto i : index_.candidates(req.frame["id"])) {
      const auto& r = responses_[i];
      if (r.at < req.written) continue;
      const auto m = match_id(req.frame["id"], r.json["id"]);
      if (m != IdMatch::None) got.emplace_back(&r, m);
    }
    return got;
  }

 private:
  const std::vector<ClientMessage>& responses_;
  IdIndex index_;
};

// How long expect_response and expect_error wait for each answer.
struct ResponseBounds {
  double within_ms = 0;
  std::optional<double> late_ms;
};

// What the client answered to one request; ExpectResponse::answer_to() adds what is wrong.
struct ResponseFindings {
  Outcome outcome = Outcome::Met;
  std::string text;                          // the Actual
  std::vector<std::string> notes;            // what is wrong with it
  bool answered = false;                     // any response came
  std::optional<Clock::time_point> pong_at;  // when a valid pong came (latency recorded)
  bool only_late = false;                    // Broken for nothing but coming after the cap

  // Notes what is wrong with it; its outcome is the worst noted.
  void note(Outcome worse, std::string what) {
    outcome = std::max(outcome, worse);
    notes.push_back(std::move(what));
  }
};

// Up to five items, " | " between them, " | ..." when there were more.
std::string first_five(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < 5; ++i) out += (i ? " | " : "") + items[i];
  if (items.size() > 5) out += " | ...";
  return out;
}

// An answer `after` ms after its request: past the bound it is late (for a pong: degraded
// when it came only at the client's next request, within the late bound).
void check_timing(double after, bool error_wanted, ResponseBounds bounds, bool at_next_request,
                  ResponseFindings& f) {
  if (after <= bounds.within_ms) return;
  if (error_wanted) {
    f.notes.push_back("after the " + format_ms(bounds.within_ms) + " ms the script waited");
  } else if (bounds.late_ms && after <= *bounds.late_ms && at_next_request) {
    f.note(Outcome::Degraded, "answered only at the client's next request, not while idle");
  } else {
    f.only_late = f.outcome != Outcome::Broken;
    f.note(Outcome::Broken, "too late (cap " + format_ms(bounds.within_ms) + " ms)");
  }
}

// Only answers the server accepted count: a pong POSTed again after a 500 or a dropped
// connection is a retry of one answer, not a second answer.
void check_repeats(const std::vector<std::pair<const ClientMessage*, IdMatch>>& got,
                   ResponseFindings& f) {
  const auto refused =
      static_cast<std::size_t>(std::count_if(got.begin(), got.end(), [](const auto& g) {
        return g.first->meta.is_object() && g.first->meta.contains("fault");
      }));
  const auto accepted = got.size() - refused;
  if (accepted > 1) {
    f.only_late = false;
    f.note(Outcome::Broken, std::to_string(accepted) + " responses to the same request");
  } else if (refused > 0 && got.size() > 1) {
    f.notes.push_back(std::to_string(got.size()) + " attempts, " + std::to_string(refused) +
                      " refused by the server");
  }
}

// expect_response (an empty result) and expect_error (an error with `code`). The step waits
// until every request has an answer or its bound passes; the verdict is made at the end of
// the run (Conversation::defer), so a second answer that comes later still counts.
struct ExpectResponse final : Step {
  std::string label;
  bool error_wanted = false;
  std::int64_t want_code = 0;
  std::string within;
  std::optional<std::string> late_within;
  CheckDef check;
  std::optional<CheckDef> code_check;  // expect_error: the code recorded on its own

  std::string expected_text(const std::vector<SentFrame>& requests, ResponseBounds bounds) const {
    const Json wanted =
        error_wanted ? Json{{"error", {{"code", want_code}}}} : Json{{"result", Json::object()}};
    std::string expected;
    if (requests.size() == 1) {
      auto shape = Json{{"jsonrpc", "2.0"}};
      shape.update(wanted);
      shape["id"] = requests[0].frame["id"];
      // A pong must come promptly; nothing bounds the time of an error response: `within` is
      // only how long the script waits before going on.
      expected = error_wanted ? "error response " + safe_dump(shape) + " by the end of the run"
                              : "response " + safe_dump(shape) + " within " +
                                    format_ms(bounds.within_ms) + " ms";
    } else {
      expected = "one response " + safe_dump(wanted) + " with the same id to each of " +
                 std::to_string(requests.size()) + " requests" +
                 (requests.empty() ? std::string()
                                   : " (ids " + safe_dump(requests.front().frame["id"]) + " .. " +
                                         safe_dump(requests.back().frame["id"]) + ")") +
                 ", each within " + format_ms(bounds.within_ms) + " ms";
    }
    if (bounds.late_ms)
      expected += " (NON_STRICT if only at the client's next request, within " +
                  format_ms(*bounds.late_ms) + " ms)";
    if (error_wanted && !code_check) expected += " (another error code: NON_STRICT)";
    return expected;
  }

  // The answer's shape: its id, jsonrpc, and the result or error the step wants. True when
  // it is a pong whose latency counts.
  bool check_answer(const Json& id, const Json& r, IdMatch how, ResponseFindings& f) const {
    if (how == IdMatch::Loose) {
      f.note(Outcome::Broken, "id type changed: sent " + typed(id) + ", got " + typed(r["id"]));
    } else if (how == IdMatch::Rounded) {
      f.note(Outcome::Degraded, "id came back rounded: sent " + safe_dump(id) + ", got " +
                                    safe_dump(r["id"]) + " (beyond 2^53, RFC 8259 section 6)");
    }
    // JSON-RPC 2.0: a response's jsonrpc "MUST be exactly "2.0"".
    if (!r.contains("jsonrpc") || !same_json(r["jsonrpc"], Json("2.0"))) {
      f.note(Outcome::Broken, r.contains("jsonrpc")
                                  ? "jsonrpc is " + safe_dump(r["jsonrpc"]) + ", not \"2.0\""
                                  : "no jsonrpc member");
    }
    if (error_wanted) {
      if (!r.contains("error") || !r["error"].is_object()) {
        f.note(Outcome::Broken, "not an error response");
      } else if (!code_check && !same_json(r["error"].value("code", Json()), Json(want_code))) {
        f.note(Outcome::Degraded, "error code " + safe_dump(r["error"].value("code", Json())) +
                                      ", expected " + std::to_string(want_code));
      }
      return false;
    }
    if (r.contains("error")) {
      f.note(Outcome::Broken, describe_error(r));
      return false;
    }
    if (!r["result"].is_object()) {
      f.note(Outcome::Broken, "result is not an object: " + shorten(safe_dump(r["result"]), 120));
      return false;
    }
    // "an empty response": _meta is the one member every result may carry.
    Json others = r["result"];
    others.erase("_meta");
    if (!others.empty()) {
      f.note(Outcome::Broken, "result is not empty: " + shorten(safe_dump(r["result"]), 120));
    }
    return how == IdMatch::Strict || how == IdMatch::Rounded;
  }

  ResponseFindings answer_to(const ClientAnswers& answers, const SentFrame& req,
                             ResponseBounds bounds, std::vector<double>& latencies) const {
    const auto got = answers.to(req);
    ResponseFindings f;
    if (got.empty()) {
      f.outcome = Outcome::Broken;
      f.text = "nothing by the end of the run (" +
               format_ms(elapsed_ms(req.written, Clock::now())) + " ms after it was sent)";
      return f;
    }
    const auto& [first, how] = got.front();
    const auto& r = first->json;
    const auto after = elapsed_ms(req.written, first->at);
    f.answered = true;
    if (check_answer(req.frame["id"], r, how, f)) {
      latencies.push_back(round3(after));
      f.pong_at = first->at;
    }
    check_timing(after, error_wanted, bounds, first->requests_before > req.requests_before, f);
    check_repeats(got, f);
    f.text = shorten(safe_dump(r), 160) + " after " + format_ms(after) + " ms";
    for (const auto& n : f.notes) f.text += "; " + n;
    return f;
  }

  void record_all(Conversation& conv, const std::vector<SentFrame>& requests,
                  ResponseBounds bounds) const {
    Outcome outcome = Outcome::Met;
    std::vector<double> latencies;
    std::vector<std::string> problems;
    std::string actual;
    std::size_t answered = 0;
    std::optional<Clock::time_point> last_pong;
    const ClientAnswers answers(conv.inbox().responses());
    // Late pongs while this machine's timers ran late (overloaded_between below) are the
    // machine's, not the client's.
    bool broken_only_late = true;
    auto first_written = requests.front().written;
    for (const auto& req : requests) first_written = std::min(first_written, req.written);
    for (const auto& req : requests) {
      auto a = answer_to(answers, req, bounds, latencies);
      if (a.outcome == Outcome::Broken && !a.only_late) broken_only_late = false;
      if (a.answered) ++answered;
      if (a.pong_at && (!last_pong || *a.pong_at > *last_pong)) last_pong = a.pong_at;
      outcome = std::max(outcome, a.outcome);
      if (requests.size() == 1) {
        actual = std::move(a.text);
      } else if (a.outcome != Outcome::Met) {
        problems.push_back("id " + safe_dump(req.frame["id"]) + ": " + a.text);
      }
    }
    Json details = Json::object();
    if (requests.size() > 1) {
      actual = std::to_string(answered) + "/" + std::to_string(requests.size()) + " answered";
      if (problems.empty()) actual += ", each exactly once";
      const auto summary = summarize_latencies(latencies);
      if (!latencies.empty()) {
        actual += "; latency p50 " + format_ms(summary.p50) + " ms, p95 " + format_ms(summary.p95) +
                  " ms, max " + format_ms(summary.max) + " ms";
        details["latency"] = {{"p50", summary.p50}, {"p95", summary.p95}, {"max", summary.max}};
      }
      // Pongs to pings written together queue behind each other: the reports show them as a
      // burst (time to the last pong, pongs per second), apart from single-pong latency.
      if (last_pong) {
        const double to_last = round3(elapsed_ms(first_written, *last_pong));
        const double per_second =
            to_last > 0 ? round3(static_cast<double>(latencies.size()) * 1000.0 / to_last) : 0;
        actual += "; the last pong " + format_ms(to_last) + " ms after the first ping (" +
                  format_ms(per_second) + " pongs/s)";
        details["burst"] =
            to_json(BurstFigures{requests.size(), latencies.size(), to_last, per_second});
      }
      if (!problems.empty())
        actual += "; " + std::to_string(problems.size()) + " problem(s): " + first_five(problems);
    }
    if (outcome == Outcome::Broken && broken_only_late) {
      const auto window_end = std::max(requests.front().written, last_pong.value_or(first_written));
      if (auto late = conv.clock().overloaded_between(first_written, window_end)) {
        outcome = Outcome::NotJudged;
        details["overloaded_timers_ms"] = *late;
      }
    }
    conv.record(check, outcome, expected_text(requests, bounds), actual, latencies,
                std::move(details));
    if (code_check) record_code(conv, requests);
  }

  // The error code on its own (server-request/unknown-method: SHOULD, "Clients SHOULD return
  // standard JSON-RPC errors for common failure cases", which names -32601 for a method the
  // client does not support).
  void record_code(Conversation& conv, const std::vector<SentFrame>& requests) const {
    std::vector<std::string> codes;
    bool all_wanted = true;
    const ClientAnswers answers(conv.inbox().responses());
    for (const auto& req : requests) {
      const auto got = answers.to(req);
      const ClientMessage* first = got.empty() ? nullptr : got.front().first;
      if (!first || !first->json.contains("error") || !first->json["error"].is_object()) {
        all_wanted = false;
        codes.push_back(first ? "not an error response" : "no response");
        continue;
      }
      const auto code = first->json["error"].value("code", Json());
      if (!same_json(code, Json(want_code))) all_wanted = false;
      codes.push_back(describe_error(first->json));
    }
    conv.record(*code_check, all_wanted ? Outcome::Met : Outcome::Broken,
                "error code " + std::to_string(want_code), first_five(codes));
  }

  StepResult run(Conversation& conv) const override {
    ResponseBounds bounds{conv.timeout(within), std::nullopt};
    if (late_within) bounds.late_ms = conv.timeout(*late_within);
    auto requests = conv.sender().labelled_requests(label);
    if (requests.empty()) {
      conv.record(check, Outcome::Broken, expected_text(requests, bounds),
                  "nothing was sent under \"" + label + "\" with an id");
      return StepResult::Ok;
    }

    // Which requests have an answer so far, updated per response by an id lookup: a burst of N
    // pings costs O(N) in all, not a scan of every request per response.
    std::vector<bool> has_answer(requests.size(), false);
    std::size_t answered_count = 0;
    IdIndex request_ids;
    for (std::size_t i = 0; i < requests.size(); ++i) request_ids.add(requests[i].frame["id"], i);
    const auto note_response = [&](const ClientMessage& r) {
      if (!r.json.contains("id")) return;
      for (const auto i : request_ids.candidates(r.json["id"])) {
        if (!has_answer[i] && r.at >= requests[i].written &&
            match_id(requests[i].frame["id"], r.json["id"]) != IdMatch::None) {
          has_answer[i] = true;
          ++answered_count;
        }
      }
    };
    for (const auto& r : conv.inbox().responses()) note_response(r);
    auto all_answered = [&] { return answered_count == requests.size(); };
    const Claim until_all = [&](const ClientMessage& m) {
      if (!is_response(m.json)) return false;
      note_response(m);
      return all_answered();
    };
    auto last_written = requests.front().written;
    for (const auto& r : requests) last_written = std::max(last_written, r.written);

    Pump why = Pump::Stopped;
    if (!all_answered())
      why = conv.inbox().pump(last_written + from_ms(bounds.within_ms), until_all);
    if (bounds.late_ms && !all_answered() && why == Pump::Deadline)
      why = conv.inbox().pump(last_written + from_ms(*bounds.late_ms), until_all);
    // Stopped by the host once the driver had exited: what was not answered is not reached.
    if (why == Pump::Interrupted && !all_answered()) return conv.after_wait(why);
    conv.recorder().defer([this, &conv, requests = std::move(requests), bounds] {
      record_all(conv, requests, bounds);
    });
    return conv.go_on(why);
  }
};

// expect_no_response: for `window` the script waits, so that the client has had time to
// answer; the verdict is made at the end of the run, so an answer that comes later (after
// the window, while the server had gone on) still fails the check, saying when it came.
struct ExpectNoResponse final : Step {
  // What may not come: a success response; any response at all; a success response other
  // than one that echoes the frame's id (a fractional id is a JSON-RPC number, which the
  // schema's RequestId accepts: echoing it is what JSON-RPC asks of a response).
  enum class Forbid { Success, Any, SuccessWithAnotherId };
  std::string label;
  std::string window;
  Forbid forbid = Forbid::Success;
  CheckDef check;
  std::optional<CheckDef> info_check;

  const std::string* fixed_wait() const override { return &window; }

  void record_all(Conversation& conv, Clock::time_point t0, double window_ms) const {
    const auto end = t0 + from_ms(window_ms);
    const auto& requests = conv.sender().labelled(label);
    const bool forbid_any = forbid == Forbid::Any;
    const std::string what = forbid_any                  ? "no response at all"
                             : forbid == Forbid::Success ? "no success response"
                                                         : "no success response other than "
                                                           "one echoing the frame's id";
    const auto expected = what + " to " + std::to_string(requests.size()) + " frame(s) sent as \"" +
                          label + "\", watched until the end of the run";
    std::vector<std::string> violations, errors, all;
    for (const auto& r : conv.inbox().responses()) {
      // "any": where the client may write no response at all (2026-07-28), every response
      // after the frame counts, whatever its id says it answers.
      const auto req = std::find_if(requests.begin(), requests.end(), [&](const SentFrame& q) {
        return r.at >= q.written && (forbid_any || attributed(q, r.json, conv.sender().all_sent()));
      });
      if (req == requests.end()) continue;
      const auto text = (r.json.contains("error")
                             ? describe_error(r.json) + " with id " +
                                   (r.json.contains("id") ? safe_dump(r.json["id"]) : "absent")
                             : shorten(safe_dump(r.json), 160)) +
                        " after " + format_ms(elapsed_ms(req->written, r.at)) + " ms" +
                        (r.at > end ? " (after the " + format_ms(window_ms) +
                                          " ms window: the server had gone on)"
                                    : "");
      all.push_back(text);
      const bool echoes = r.json.contains("id") && req->frame.contains("id") &&
                          match_id(req->frame["id"], r.json["id"]) == IdMatch::Strict;
      if (r.json.contains("error")) errors.push_back(text);
      if (forbid_any ||
          (!r.json.contains("error") && !(forbid == Forbid::SuccessWithAnotherId && echoes)))
        violations.push_back(text);
    }
    const auto watched = "in the " + format_ms(elapsed_ms(t0, Clock::now())) + " ms to the end";
    conv.record(check, violations.empty() ? Outcome::Met : Outcome::Broken, expected,
                !violations.empty() ? first_five(violations)
                : errors.empty()    ? "none " + watched
                                    : "none " + watched + " (seen: " + first_five(errors) + ")");
    if (!info_check) return;
    // Silence meets it. What came is recorded: where no response at all is allowed, whatever
    // came instead (an error with its code, a success result); else an error response with
    // its code (INFORMATIONAL for an INFO check), both acceptable answers to a malformed
    // request.
    const auto& came = forbid_any ? all : errors;
    conv.record(*info_check, came.empty() ? Outcome::Met : Outcome::Broken,
                forbid_any ? "the response, if any: an error (with its code) or a result"
                           : "the error response, if any, and its code",
                !came.empty() ? first_five(came)
                : forbid_any  ? "no response " + watched
                              : "no error response " + watched);
  }

  StepResult run(Conversation& conv) const override {
    const auto window_ms = conv.timeout(window);
    const auto t0 = Clock::now();
    const auto why = conv.inbox().pump(t0 + from_ms(window_ms), nullptr);
    conv.recorder().defer([this, &conv, t0, window_ms] { record_all(conv, t0, window_ms); });
    return conv.go_on(why);
  }
};

std::unique_ptr<ExpectResponse> parse_response(StepParser& p, bool error_wanted) {
  auto s = std::make_unique<ExpectResponse>();
  s->error_wanted = error_wanted;
  s->label = p.known_label();
  s->within = p.timeout("within", "pong_cap_ms");
  if (error_wanted) {
    const auto& code = p.member("code");
    if (!code.is_number_integer()) p.fail(p.pointer("code"), "must be an integer error code");
    s->want_code = code.get<std::int64_t>();
  } else if (p.has("late_within")) {
    s->late_within = p.timeout("late_within", "late_pong_ms");
  }
  s->check = p.check("check");
  if (error_wanted) s->code_check = p.optional_check("code_check");
  return s;
}

std::string bad_forbid(const std::string&) {
  return "must be \"success\", \"any\" or \"success-with-another-id\"";
}

}  // namespace

std::unique_ptr<Step> parse_expect_response(StepParser& p) { return parse_response(p, false); }

std::unique_ptr<Step> parse_expect_error(StepParser& p) { return parse_response(p, true); }

std::unique_ptr<Step> parse_expect_no_response(StepParser& p) {
  auto s = std::make_unique<ExpectNoResponse>();
  s->label = p.known_label();
  s->window = p.timeout("window", "quiet_ms");
  const auto forbid =
      p.one_of("forbid", {"success", "any", "success-with-another-id"}, "success", bad_forbid);
  using F = ExpectNoResponse::Forbid;
  s->forbid = forbid == "any" ? F::Any : forbid == "success" ? F::Success : F::SuccessWithAnotherId;
  s->check = p.check("check");
  s->info_check = p.optional_check("info_check");
  return s;
}

}  // namespace mcpping::steps
