// HTTP transports only: fail_next_post, expect_post, disconnect, await_resume
// (docs/http-mock-server.md).
#include <algorithm>

#include "conversation.hpp"
#include "core/check_registry.hpp"
#include "core/jsonrpc.hpp"
#include "core/pattern.hpp"
#include "core/text.hpp"
#include "step_parser.hpp"

namespace mcpping::steps {

namespace {

struct FailNextPost final : Step {
  Json pattern;
  std::string with;   // "500", "404" or "reset"
  std::string label;  // optional: the checks `given` it are recorded once it fired

  StepResult run(Conversation& conv) const override {
    const PostFault fault{pattern, conv.script().captures(), with, label};
    if (!conv.channel().arm_post_fault(fault)) {
      conv.transcript().event("this transport has no POSTs to fail");
      return conv.fail("fail_next_post needs an HTTP transport");
    }
    conv.transcript().event(
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

  StepResult run(Conversation& conv) const override {
    const auto within_ms = conv.timeout(within);
    const auto requests = conv.sender().labelled_requests(label);
    const auto expected = "the POST carrying the response to each request sent as \"" + label +
                          "\" matches " + safe_dump(pattern) +
                          (preferred ? ", and should match " + safe_dump(*preferred) : "");
    const auto& responses = conv.inbox().responses();
    auto response_to = [&](const SentFrame& req) -> const ClientMessage* {
      const std::vector<ClientMessage>* lists[] = {&responses, &conv.inbox().refused_responses()};
      for (const auto* list : lists) {
        for (const auto& r : *list) {
          if (r.json.is_object() && r.json.contains("id") && r.at >= req.written &&
              match_id(req.frame["id"], r.json["id"]) != IdMatch::None)
            return &r;
        }
      }
      return nullptr;
    };
    auto all_in = [&] {
      return std::all_of(requests.begin(), requests.end(),
                         [&](const SentFrame& r) { return response_to(r) != nullptr; });
    };
    Pump why = Pump::Stopped;
    if (!requests.empty() && !all_in()) {
      why = conv.inbox().pump(Clock::now() + from_ms(within_ms), [&](const ClientMessage& m) {
        return (is_response(m.json) || m.event == "post-refused") && all_in();
      });
    }
    if (why == Pump::Interrupted && !all_in()) return conv.after_wait(why);  // not reached
    // The premise: a POST carried a response. Without one there are no headers to record
    // (the response's own check records its absence).
    Outcome outcome = Outcome::Met;
    std::size_t posted = 0;
    std::string actual;
    for (const auto& req : requests) {
      const auto* r = response_to(req);
      const auto id = "id " + safe_dump(req.frame["id"]);
      const auto seen = r ? shorten(safe_dump(r->meta), 240) : std::string();
      std::string text;
      std::string why_not;
      if (r) ++posted;
      if (!r) {
        text = "no response to " + id + " within " + format_ms(within_ms) + " ms";
      } else if (r->meta.is_object() && r->meta.contains("refused")) {
        outcome = Outcome::Broken;
        text = id + ": the server refused its POST with " + safe_dump(r->meta["refused"]) + " in " +
               seen;
      } else if (!matches(pattern, r->meta, conv.script().captures(), &why_not)) {
        outcome = Outcome::Broken;
        text = id + ": " + why_not + " in " + seen;
      } else if (preferred && !matches(*preferred, r->meta, conv.script().captures(), &why_not)) {
        if (outcome == Outcome::Met) outcome = Outcome::Degraded;
        text = id + ": degraded: " + why_not + " in " + seen;
      } else if (requests.size() == 1) {
        text = seen;
      }
      if (!text.empty()) actual += (actual.empty() ? "" : " | ") + text;
    }
    if (posted == 0) {
      outcome = Outcome::NotJudged;
      actual = requests.empty()
                   ? "nothing was sent under \"" + label + "\" with an id"
                   : "no POST carrying a response to \"" + label + "\" was accepted (" + actual +
                         "; one the server refused is judged by the HTTP rule that "
                         "refused it)";
    } else if (actual.empty()) {
      actual = std::to_string(requests.size()) + " POST(s), each matching";
    }
    conv.record(check, outcome, expected, actual);
    return conv.go_on(why);
  }
};

// The server closes the connection of a POST's stream, or of the GET listening stream, without
// ending the stream or answering its request (2025-11-25: "the server MAY close the connection
// (without terminating the SSE stream)"; on the GET stream "it SHOULD follow the same polling
// behavior as described for POST requests"), so that the client resumes it.
struct Disconnect final : Step {
  std::string on;  // "post:NAME" or "get"

  StepResult run(Conversation& conv) const override {
    const auto route = conv.route_of(on);
    if (!route) return StepResult::Failed;
    const auto result = conv.channel().disconnect(*route);
    if (!result.ok) {
      conv.transcript().event("cannot disconnect " + *route + ": " + result.error);
      return conv.fail("disconnect failed");
    }
    std::string what = "closed the connection of " + *route + " without ending its stream";
    Json extra{{"stream", *route}};
    if (result.last_event_id) {
      what += "; last event id " + safe_dump(Json(*result.last_event_id));
      extra["last_event_id"] = *result.last_event_id;
    } else {
      what += "; no event of it carried an id: the client has nothing to resume it with";
    }
    if (result.retry_ms) {
      what += ", retry " + std::to_string(*result.retry_ms) + " ms";
      extra["retry_ms"] = *result.retry_ms;
    }
    conv.transcript().event(what, std::move(extra));
    return StepResult::Ok;
  }
};

// A GET that could have resumed `route` (disconnected then) and did not, described.
std::optional<std::string> missed_resumption(const ClientMessage& m, const std::string& route) {
  const bool opened = m.event == "get-stream-opened";
  if (!opened && m.event != "get-stream-refused") return std::nullopt;
  const auto& waiting = m.meta.value("disconnected", Json::array());
  if (std::find(waiting.begin(), waiting.end(), Json(route)) == waiting.end()) return std::nullopt;
  std::string text = m.meta.contains("last_event_id")
                         ? "a GET with Last-Event-ID " + safe_dump(m.meta["last_event_id"]) +
                               ", no event of " + route + ","
                         : "a GET without Last-Event-ID";
  return text + (opened ? " opened the listening stream"
                        : " got " + safe_dump(m.meta.value("status", Json())) +
                              " (a listening stream was open)");
}

// Waits for the client to resume a stream the server disconnected: "it SHOULD issue an HTTP
// GET to the MCP endpoint, and include the Last-Event-ID header to indicate the last event ID
// it received", after "waiting the given number of milliseconds" of the last `retry:` field.
// On a POST's stream only a GET with Last-Event-ID resumes it (`check`); the GET listening
// stream is reconnected by any GET (`check`), whose Last-Event-ID `last_event_id_check` records.
struct AwaitResume final : Step {
  std::string on;  // "post:NAME" or "get"
  std::string within;
  CheckDef check;
  std::optional<CheckDef> retry_check;
  std::optional<CheckDef> last_event_id_check;  // "get" only

  StepResult run(Conversation& conv) const override {
    const auto route = conv.route_of(on);
    if (!route) return StepResult::Failed;
    const bool listening = *route == "get";
    const auto within_ms = conv.timeout(within);
    const auto t0 = Clock::now();
    std::vector<std::string> other_gets;  // GETs while it waited for one, that resumed nothing
    auto& resumed = conv.inbox().resumed();
    Pump why = Pump::Stopped;
    if (!resumed.count(*route)) {
      why = conv.inbox().pump(t0 + from_ms(within_ms), [&](const ClientMessage& m) {
        // Resumed, or (the listening stream) reconnected without resuming it (no Last-Event-ID,
        // or one naming no event of it): a fresh listening stream replaced it.
        if ((m.event == "get-stream-opened" && m.meta.is_object() &&
             m.meta.value("reconnects", "") == *route) ||
            (m.event == "stream-resumed" && m.meta.value("stream", "") == *route))
          return true;
        if (auto text = missed_resumption(m, *route)) other_gets.push_back(std::move(*text));
        return false;
      });
    }
    const auto expected =
        (listening
             ? "a GET reconnecting the listening stream after the server closed its connection"
             : "a GET with Last-Event-ID naming the last event written on " + *route +
                   " before the server closed its connection") +
        ", within " + format_ms(within_ms) + " ms";
    const auto it = resumed.find(*route);
    if (it == resumed.end()) {
      if (why == Pump::CaseDeadline || why == Pump::Interrupted) return conv.after_wait(why);
      auto actual = why == Pump::Eof
                        ? conv.inbox().no_message_text(why, within_ms, t0)
                        : std::string(listening ? "no GET reconnected it" : "no GET resumed it") +
                              " within " + format_ms(within_ms) + " ms";
      if (!other_gets.empty()) actual += "; " + join(other_gets, "; ");
      conv.record(check, Outcome::Broken, expected, actual);
      // What follows needs the resumed stream. A client that only SHOULD (or MAY) resume
      // leaves it not judged, not failed: its own check says what it skipped.
      if (!miss_stops_script(check)) {
        conv.transcript().unsupported("the client did not " +
                                      std::string(listening ? "reconnect " : "resume ") + *route +
                                      " (" + std::string(to_string(check.level)) +
                                      "): the checks that need the resumed stream are not judged");
      }
      return conv.fail("the client did not resume the stream");
    }
    const auto& meta = it->second.meta;
    const bool resumption = it->second.event == "stream-resumed";
    const auto last = meta.value("stream_last_event_id", "");
    const auto waited = meta.value("waited_ms", 0.0);
    const auto after = format_ms(waited) + " ms after the connection closed";
    if (listening) {
      conv.record(check, Outcome::Met, expected,
                  std::string(resumption ? "a GET resuming it, " : "a GET, ") + after);
      if (last_event_id_check) record_last_event_id(conv, meta, resumption, last);
    } else {
      const auto sent = meta.value("last_event_id", "");
      conv.record(
          check, sent == last ? Outcome::Met : Outcome::Degraded, expected,
          "GET with Last-Event-ID " + safe_dump(Json(sent)) + ", " + after +
              (sent == last ? ""
                            : ": an earlier event than the last one written (" +
                                  safe_dump(Json(last)) + "), so what followed it is replayed"));
    }
    if (retry_check) record_retry(conv, meta, waited);
    return StepResult::Ok;
  }

  // The reconnecting GET's Last-Event-ID: the last event ID the stream wrote is met, an
  // earlier one of its events degraded (what followed is replayed), none or another broken.
  void record_last_event_id(Conversation& conv, const Json& meta, bool resumption,
                            const std::string& last) const {
    const auto sent = "Last-Event-ID " + safe_dump(Json(meta.value("last_event_id", "")));
    auto outcome = Outcome::Broken;
    std::string actual;
    if (!meta.contains("last_event_id")) {
      actual = "a GET without Last-Event-ID: a new listening stream, the old one abandoned";
    } else if (!resumption) {
      actual = sent + ", which names no event the stream wrote: a new listening stream";
    } else if (meta.value("last_event_id", "") == last) {
      outcome = Outcome::Met;
      actual = sent;
    } else {
      outcome = Outcome::Degraded;
      actual =
          sent + ": an earlier event than the last one written, so what followed it is replayed";
    }
    conv.record(*last_event_id_check, outcome,
                "the reconnecting GET carries Last-Event-ID " + safe_dump(Json(last)) +
                    ", the last event ID the stream wrote",
                actual);
  }

  // Only the lower bound is checked: waiting longer cannot be told from a slow network.
  void record_retry(Conversation& conv, const Json& meta, double waited) const {
    if (!meta.contains("retry_ms")) {
      conv.record(*retry_check, Outcome::Met, "no reconnection before the last retry field's delay",
                  "no retry field was written: any delay respects it (waited " + format_ms(waited) +
                      " ms)");
      return;
    }
    const auto retry = meta["retry_ms"].get<double>();
    conv.record(*retry_check, waited >= retry ? Outcome::Met : Outcome::Broken,
                "the " + std::string(meta.contains("reconnects") ? "reconnecting" : "resuming") +
                    " GET at least " + format_ms(retry) +
                    " ms (the retry field) after the connection closed",
                "after " + format_ms(waited) + " ms");
  }
};

}  // namespace

std::unique_ptr<Step> parse_disconnect(StepParser& p) {
  auto s = std::make_unique<Disconnect>();
  s->on = p.stream_arg();
  return s;
}

std::unique_ptr<Step> parse_await_resume(StepParser& p) {
  auto s = std::make_unique<AwaitResume>();
  s->on = p.stream_arg();
  s->within = p.timeout("within", "expect_ms");
  s->check = p.check("check");
  s->retry_check = p.optional_check("retry_check");
  // A POST's stream is resumed only by a GET with its Last-Event-ID: `check` records that.
  if (s->on != "get" && p.has("last_event_id_check"))
    p.fail(p.pointer("last_event_id_check"),
           "only the GET listening stream can be reconnected without Last-Event-ID: on a POST's "
           "stream `check` records the header");
  s->last_event_id_check = p.optional_check("last_event_id_check");
  return s;
}

std::unique_ptr<Step> parse_fail_next_post(StepParser& p) {
  auto s = std::make_unique<FailNextPost>();
  s->pattern = p.pattern(p.object_arg(), p.arg_pointer());
  const auto& with = p.member("with");
  if (with != Json(500) && with != Json(404) && with != Json("reset"))
    p.fail(p.pointer("with"), "must be 500, 404 or \"reset\"");
  s->with = with.is_string() ? with.get<std::string>() : std::to_string(with.get<int>());
  s->label = p.define_label("label", /*answer=*/true).value_or("");
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
  s->check = p.check("check", "a POST carried the client's response to \"" + s->label + "\"");
  return s;
}

}  // namespace mcpping::steps
