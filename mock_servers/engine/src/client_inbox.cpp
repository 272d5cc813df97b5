#include "client_inbox.hpp"

#include <algorithm>
#include <thread>

#include "case_clock.hpp"
#include "core/check_registry.hpp"
#include "core/jsonrpc.hpp"
#include "core/pattern.hpp"
#include "core/scenario.hpp"
#include "core/text.hpp"
#include "engine/default_server.hpp"
#include "engine/modern.hpp"
#include "recorder.hpp"
#include "sender.hpp"

namespace mcpping {

Incoming ClientInbox::next(Clock::time_point deadline) {
  if (!batch_.empty()) {  // they arrived with their line
    auto in = std::move(batch_.front());
    batch_.pop_front();
    return in;
  }
  // Only a channel that stamps arrivals ahead (a test double) finds the stash early; a real
  // one stashed it because it came after the deadline, so this does not wait.
  if (stash_ && stash_->at > deadline) std::this_thread::sleep_until(deadline);
  auto in = stash_ ? *std::exchange(stash_, std::nullopt) : parts_.channel.receive(deadline);
  if (in.kind != Incoming::Kind::Timeout && in.at > deadline) {
    stash_ = std::move(in);
    return Incoming{Incoming::Kind::Timeout, {}, 0, Clock::now()};
  }
  // Notes the client's first contact (CaseClock::contact) when it is one.
  if (in.kind != Incoming::Kind::Timeout && in.kind != Incoming::Kind::Interrupted)
    parts_.clock.contact(in.at);
  return in;
}

void ClientInbox::invalid_message(const std::string& text, const std::string& why,
                                  std::string_view spec) {
  if (!first_time("transport:valid-message")) return;
  parts_.recorder.record_implicit(
      builtin_check("transport:valid-message", spec),
      "every line the client writes is a JSON-RPC message (a JSON object" +
          std::string(negotiated_version_ && revision_has_batches(*negotiated_version_)
                          ? ", or a batch of them: 2025-03-26)"
                          : ")"),
      why + ": " + shorten(text, 200));
}

void ClientInbox::on_array(const Incoming& in, const Json& array) {
  auto& transcript = parts_.transcript;
  const auto version = negotiated_version_.value_or("none");
  if (!revision_has_batches(version)) {
    transcript.raw(Direction::ClientToServer, in.text);
    invalid_message(in.text,
                    "a JSON array (a batch), but batches exist only in revision "
                    "2025-03-26 (negotiated: " +
                        version + ")");
    return;
  }
  if (auto problem = batch_problem(array, /*mixed_ok=*/true)) {
    transcript.raw(Direction::ClientToServer, in.text);
    invalid_message(
        in.text, "an invalid batch: " + *problem,
        *problem == kBatchedInitialize ? "lifecycle.initialize-not-batched" : "stdio.batch");
    return;
  }
  transcript.raw(Direction::ClientToServer, in.text, {},
                 {{"note", "a JSON-RPC batch of " + std::to_string(array.size()) +
                               " (revision 2025-03-26): each element follows as a message"}});
  // Lenient: a batch that mixes responses with requests or notifications is none of the
  // forms 2025-03-26 allows, but every element can be processed.
  if (auto problem = batch_problem(array)) invalid_message(in.text, *problem, "stdio.batch");
  for (const auto& element : array) {
    Json meta = in.meta.is_object() ? in.meta : Json::object();
    meta["batch"] = array.size();
    batch_.push_back(Incoming{Incoming::Kind::Line, safe_dump(element), 0, in.at, std::move(meta)});
  }
}

bool ClientInbox::on_line(const Incoming& in, const Claim& claim) {
  auto& transcript = parts_.transcript;
  auto json = Json::parse(in.text, nullptr, false);
  if (json.is_array()) {
    on_array(in, json);
    return false;
  }
  if (json.is_discarded() || !json.is_object()) {
    if (in.text.find_first_not_of(" \t\r") == std::string::npos) {
      transcript.raw(Direction::ClientToServer, in.text, {}, {{"note", "blank line"}});
      return false;
    }
    transcript.raw(Direction::ClientToServer, in.text);
    invalid_message(in.text, json.is_discarded()
                                 ? "a line that is not JSON"
                                 : std::string("a JSON ") +
                                       std::string(to_string(json_kind(json))) + ", not an object");
    return false;
  }
  // `t` is when the frame was recorded; `arrived` when it was read from the client, the
  // time latencies are measured to (they differ when the server is busy, e.g. in a burst).
  Json extra{{"arrived", round3(transcript.ms(in.at))}};
  if (in.meta.is_object() && in.meta.contains("batch")) extra["batch"] = in.meta["batch"];
  transcript.frame(Direction::ClientToServer, in.text, &json, 1, std::move(extra));
  ClientMessage msg{std::move(json), in.at, client_requests_, in.meta, {}};
  const auto& j = msg.json;
  if (j.contains("method")) {
    if (is_request(j)) {
      msg.request_index = request_ids_.size();
      request_ids_.emplace_back(j["id"], method_of(j));
    }
    if (parts_.recorder.take_owed_initialized(msg)) return false;
    const auto method = method_of(j);
    if (is_request(j) && method != "ping") ++client_requests_;
    if (is_request(j) && era() == Era::Modern) check_modern_request(msg);
    if (method == "notifications/cancelled") check_cancellation(msg);
    if (claim && claim(msg)) return true;
    if (serving_) {
      answer_default(j);
    } else if (!serve_in_passing(msg)) {
      waiting_.push_back(std::move(msg));
    }
    return false;
  }
  if (is_response(j)) {
    responses_.push_back(msg);
    return claim && claim(msg);
  }
  invalid_message(in.text,
                  "a JSON object that is neither a request, a notification nor a response");
  return false;
}

bool ClientInbox::claim_waiting(const Claim& claim) {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (is_request(it->json) && default_service(method_of(it->json))) {
      if (claim && claim(*it)) {
        waiting_.erase(it);
        return true;
      }
      if (serve_in_passing(*it)) {
        it = waiting_.erase(it);
        continue;
      }
    }
    ++it;
  }
  return false;
}

void ClientInbox::on_overflow(const Incoming& in) {
  parts_.transcript.raw(Direction::ClientToServer, in.text, in.bytes,
                        {{"note", "line longer than the cap; head kept, rest discarded"}});
  if (!first_time("transport:line-too-long")) return;
  parts_.recorder.record_implicit(
      builtin_check("transport:line-too-long"),
      "every client message on one line of at most " + std::to_string(parts_.line_cap) + " bytes",
      "a line passed " + std::to_string(parts_.line_cap) +
          " bytes without a newline; head: " + shorten(in.text, 120));
}

std::optional<Pump> ClientInbox::on_event(const Incoming& in, const Claim& claim) {
  const ClientMessage event{Json(), in.at, client_requests_, in.meta, in.text};
  if (in.text == "get-stream-opened") get_stream_open_ = true;
  if (in.text == "get-stream-closed") get_stream_open_ = false;
  if (in.text == "partial-message")
    held_input_bytes_ = in.meta.is_object() ? in.meta.value("bytes", std::size_t{0}) : 0;
  if (in.text == "post-refused" && in.meta.is_object())
    refused_responses_.push_back(
        ClientMessage{in.meta.value("message", Json()), in.at, client_requests_, in.meta, in.text});
  if (in.text == "stream-resumed" && in.meta.is_object()) {
    resumed_.insert_or_assign(in.meta.value("stream", ""), event);
    if (in.meta.value("stream", "") == "get") get_stream_open_ = true;
  }
  // A GET that replaced the disconnected listening stream with a fresh one.
  if (in.text == "get-stream-opened" && in.meta.is_object() && in.meta.contains("reconnects"))
    resumed_.insert_or_assign(in.meta.value("reconnects", ""), event);
  if (in.meta.is_object() && in.meta.contains("connected"))
    client_gone_ = !in.meta["connected"].get<bool>();
  // No session or stream left (HTTP): nothing more can come, as at end of input.
  if (client_gone_) {
    eof_ = true;
    parts_.transcript.event("the client ended its session: nothing more can come");
    return Pump::Eof;
  }
  if (claim && claim(event)) return Pump::Stopped;
  return std::nullopt;
}

std::optional<Pump> ClientInbox::on_timeout(Clock::time_point deadline) {
  if (!parts_.clock.first_contact()) {
    if (Clock::now() < parts_.clock.startup_deadline()) return std::nullopt;
    parts_.clock.exceed_startup();
    return Pump::CaseDeadline;
  }
  if (Clock::now() >= parts_.clock.case_deadline()) return Pump::CaseDeadline;
  if (Clock::now() >= deadline) return Pump::Deadline;
  return std::nullopt;
}

std::optional<Pump> ClientInbox::take(const Incoming& in, const Claim& claim,
                                      Clock::time_point deadline) {
  auto& transcript = parts_.transcript;
  switch (in.kind) {
    case Incoming::Kind::Line:
      if (on_line(in, claim)) return Pump::Stopped;
      break;
    case Incoming::Kind::Overflow:
      on_overflow(in);
      break;
    case Incoming::Kind::OverflowEnd:
      transcript.event(
          "the over-long client line ended after " + std::to_string(in.bytes) + " bytes",
          {{"bytes", in.bytes}});
      break;
    case Incoming::Kind::Unterminated:
      transcript.raw(Direction::ClientToServer, in.text, {},
                     {{"note", "input ended inside a line (no newline)"}});
      break;
    case Incoming::Kind::Eof:
      eof_ = true;
      transcript.event("end of input: the client closed the connection");
      return Pump::Eof;
    case Incoming::Kind::Interrupted:
      return Pump::Interrupted;
    case Incoming::Kind::Event:
      // The host has recorded it; the script sees it only when a step waits for it.
      return on_event(in, claim);
    case Incoming::Kind::Timeout:
      return on_timeout(deadline);
  }
  return std::nullopt;
}

Pump ClientInbox::pump(Clock::time_point deadline, const Claim& claim) {
  // Default-service requests waiting in the inbox (held by the handshake or a discover step,
  // or kept for a step that has run since): the claim sees each first.
  if (claim_waiting(claim)) return Pump::Stopped;
  // A wait that starts before the client's first contact opens its window at that contact:
  // the time the client took to start is not the step's (docs/verdicts.md, "Timeouts").
  const auto entered = Clock::now();
  bool before_contact = !parts_.clock.first_contact();
  for (;;) {
    if (eof_) return Pump::Eof;
    const auto limit = parts_.clock.first_contact()
                           ? std::min(deadline, parts_.clock.case_deadline())
                           : parts_.clock.startup_deadline();
    auto in = next(limit);
    if (before_contact && parts_.clock.first_contact()) {
      before_contact = false;
      const auto startup = *parts_.clock.first_contact() - entered;
      if (startup > Clock::duration::zero() && deadline < Clock::time_point::max() - startup)
        deadline += startup;
    }
    if (auto ended = take(in, claim, deadline)) return *ended;
  }
}

Pump ClientInbox::await_event(const std::string& event, Clock::time_point deadline,
                              const std::function<bool()>& reached) {
  if (reached()) return Pump::Stopped;
  return pump(deadline, [&](const ClientMessage& m) { return m.event == event; });
}

std::optional<ClientMessage> ClientInbox::await_message(const Json& pattern,
                                                        Clock::time_point deadline, Pump& why) {
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (matches(pattern, it->json, parts_.script.captures())) {
      auto msg = std::move(*it);
      waiting_.erase(it);
      return msg;
    }
  }
  std::optional<ClientMessage> found;
  why = pump(deadline, [&](const ClientMessage& m) {
    if (!is_response(m.json) && matches(pattern, m.json, parts_.script.captures())) {
      found = m;
      return true;
    }
    return false;
  });
  return found;
}

std::string ClientInbox::no_message_text(Pump why, double within_ms,
                                         Clock::time_point since) const {
  if (why == Pump::Interrupted) return "interrupted";
  if (why == Pump::Eof || why == Pump::CaseDeadline)
    return (why == Pump::Eof ? "the client closed the connection after "
                             : "the case deadline passed after ") +
           format_ms(elapsed_ms(since, Clock::now())) + " ms";
  std::string text = "nothing matching within " + format_ms(within_ms) + " ms";
  if (!waiting_.empty()) {
    text += " (waiting unmatched:";
    for (std::size_t i = 0; i < waiting_.size() && i < 3; ++i)
      text += " " + describe_message(waiting_[i].json) + ";";
    text += waiting_.size() > 3 ? " ...)" : ")";
  }
  return text;
}

Era ClientInbox::era() const {
  return negotiated_version_ && revision_is_modern(*negotiated_version_) ? Era::Modern
                                                                         : Era::Legacy;
}

bool ClientInbox::serve_in_passing(const ClientMessage& message) {
  const auto& request = message.json;
  if (!is_request(request)) return false;
  const auto method = method_of(request);
  if (!default_service(method) || parts_.script.later_step_takes(method)) return false;
  Json extra{{"served", method}, {"id", request["id"]}};
  if (const auto step = parts_.script.step()) extra["step"] = *step;
  parts_.transcript.event(
      "served by default: " + describe_message(request) + " (no step of the script waits for it)",
      std::move(extra));
  answer_default(request);
  return true;
}

void ClientInbox::answer_default(const Json& message) {
  if (auto answer = default_answer(message, parts_.defaults, era()))
    parts_.sender.send_one(*answer, client_requests_);
}

void ClientInbox::check_cancellation(const ClientMessage& message) {
  const auto& j = message.json;
  if (!j.contains("params") || !j["params"].is_object() || !j["params"].contains("requestId"))
    return;
  const auto& id = j["params"]["requestId"];
  const std::pair<Json, std::string>* issued = nullptr;
  for (const auto& request : request_ids_)
    if (same_json(request.first, id)) issued = &request;
  std::string problem;
  std::string_view spec = "cancellation.only-issued";
  if (!issued) {
    problem = "its requestId " + safe_dump(id) + " names no request the client sent";
  } else if (issued->second == "initialize") {
    problem = "its requestId " + safe_dump(id) + " is the client's initialize";
    spec = "cancellation.not-initialize";
  } else {
    return;
  }
  if (!first_time("cancellation:references")) return;
  parts_.recorder.record_implicit(builtin_check("cancellation:references", spec),
                                  std::string(builtin_expected("cancellation:references")),
                                  describe_message(j) + ": " + problem);
}

void ClientInbox::check_modern_request(const ClientMessage& message) {
  const auto what = describe_message(message.json);
  const auto problems = meta_problems(message.json);
  if (!problems.empty() && first_time("modern:request-meta")) {
    parts_.recorder.record_implicit(builtin_check("modern:request-meta"),
                                    std::string("every request carries _meta with ") +
                                        kMetaProtocolVersion + " and " + kMetaClientCapabilities,
                                    what + ": " + join(problems, "; "));
  }
  // A real server answers -32022 and the client SHOULD retry: lenient, served as it is.
  const auto unsupported = unsupported_meta_version(message.json);
  if (unsupported && first_time("unsupported-version")) {
    parts_.transcript.event(what + ": " + *unsupported +
                            "; a real server answers UnsupportedProtocolVersionError (-32022), "
                            "this one serves it");
  }
  if (lacks_client_info(message.json) && first_time("modern:client-info")) {
    parts_.recorder.record_implicit(
        builtin_check("modern:client-info"),
        std::string("every request carries ") + kMetaClientInfo + " in _meta",
        what + " without it");
  }
}

void ClientInbox::serve_all() {
  serving_ = true;
  for (; !waiting_.empty(); waiting_.pop_front()) answer_default(waiting_.front().json);
}

}  // namespace mcpping
