#include "engine/run.hpp"

#include <cmath>

#include "core/check_registry.hpp"
#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "core/timing.hpp"

namespace mcpping {

double elapsed_ms(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

Clock::duration from_ms(double ms) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

double round3(double ms) { return std::round(ms * 1000.0) / 1000.0; }

std::string describe_message(const Json& message) {
  if (message.contains("method")) {
    auto text = method_of(message);
    if (text.empty()) text = "method " + safe_dump(message["method"]);
    if (message.contains("id")) text += " id " + safe_dump(message["id"]);
    return text;
  }
  return shorten(safe_dump(message), 200);
}

std::string describe_error(const Json& response) {
  const auto& error = response["error"];
  std::string text = "error";
  if (error.is_object()) {
    if (error.contains("code")) text += " " + safe_dump(error["code"]);
    if (error.contains("message")) text += " " + safe_dump(error["message"]);
  } else {
    text += " " + safe_dump(error);
  }
  return text;
}

std::string typed(const Json& value) {
  return safe_dump(value) + " (" + std::string(to_string(json_kind(value))) + ")";
}

Run::Run(const Json& resolved, Channel& channel_, Transcript& transcript_)
    : channel(channel_),
      transcript(transcript_),
      defaults(server_defaults_from(resolved)),
      client(*this) {
  for (const auto& [name, ms] : resolved.at("timeouts").items()) timeouts[name] = ms.get<double>();
  line_cap = resolved.at("line_cap_bytes").get<std::size_t>();
  script_size = resolved.at("script").size();
}

void Run::start_clock(Clock::time_point now) {
  startup_deadline = now + from_ms(timeout("startup_ms"));
  // Until contact, the latest the script can end: the mock servers' watchdogs count to it.
  case_deadline = startup_deadline + from_ms(timeout("case_deadline_ms"));
}

void Run::contact(Clock::time_point at) {
  if (first_contact) return;
  first_contact = at;
  case_deadline = at + from_ms(timeout("case_deadline_ms"));
  transcript.event("first contact from the client, " + format_ms(std::max(0.0, transcript.ms(at))) +
                       " ms after the server started: the case deadline runs from here",
                   {{"first_contact", round3(std::max(0.0, transcript.ms(at)))}});
}

void Run::exceed_startup() {
  if (startup_exceeded) return;
  startup_exceeded = true;
  transcript.event("the client did not start within " + format_ms(timeout("startup_ms") / 1000.0) +
                       " s: no line, byte or request reached the server (start-up budget "
                       "startup_ms)",
                   {{"startup_exceeded", timeout("startup_ms")}});
}

std::optional<double> Run::overloaded_between(Clock::time_point from, Clock::time_point to) const {
  const double late = timers.worst_ms(from, to);
  if (late <= kOverloadedTimersMs) return std::nullopt;
  return round3(late);
}

bool Run::later_step_takes(const std::string& method) const {
  for (auto i = step_index + 1; i < steps.size(); ++i) {
    if (steps[i]->takes(method, *this)) return true;
  }
  return false;
}

void Run::record(const CheckDef& check, Outcome outcome, std::string expected, std::string actual,
                 std::vector<double> latency, Json details) {
  record_for_step(step_index, check, outcome, std::move(expected), std::move(actual),
                  std::move(latency), std::move(details));
}

void Run::record_for_step(std::size_t step, const CheckDef& check, Outcome outcome,
                          std::string expected, std::string actual, std::vector<double> latency,
                          Json details) {
  CheckRecord r;
  r.check = check;
  r.outcome = outcome;
  r.expected = std::move(expected);
  r.actual = std::move(actual);
  r.latency_ms = std::move(latency);
  r.details = std::move(details);
  if (step < script_size) r.step = step;
  transcript.check(r);
}

bool Run::take_owed_initialized(const ClientMessage& message) {
  if (!owed_initialized || !is_notification(message.json) ||
      method_of(message.json) != "notifications/initialized")
    return false;
  // Over HTTP only the session the initialize started can owe it: a later session's
  // notification is that session's, not a late one for the first.
  if (!owed_initialized->session.empty() && session_of(message) != owed_initialized->session)
    return false;
  const auto& owed = *owed_initialized;
  record_for_step(owed.step, builtin_check("handshake"), Outcome::Met,
                  std::string(builtin_expected("handshake")),
                  owed.init_text + "; notifications/initialized " +
                      format_ms(std::max(0.0, elapsed_ms(owed.since, message.at))) +
                      " ms after the response, late: the server had gone on (" + owed.moved_on +
                      ")");
  owed_initialized.reset();
  return true;
}

void Run::settle_owed_initialized() {
  if (!owed_initialized) return;
  const auto& owed = *owed_initialized;
  record_for_step(owed.step, builtin_check("handshake"), Outcome::Broken,
                  std::string(builtin_expected("handshake")),
                  owed.init_text + "; no notifications/initialized by the end of the run (" +
                      format_ms(elapsed_ms(owed.since, Clock::now())) +
                      " ms after the response); the server went on without it (" + owed.moved_on +
                      ")");
  owed_initialized.reset();
}

void Run::defer(std::function<void(Run&)> settle) {
  deferred_.push_back(Deferred{step_index, std::move(settle)});
}

void Run::settle_deferred() {
  settle_owed_initialized();
  const auto current = step_index;
  auto pending = std::move(deferred_);
  deferred_.clear();
  for (auto& d : pending) {
    step_index = d.step;
    d.settle(*this);
  }
  step_index = current;
}

void Run::record_implicit(const CheckDef& check, std::string expected, std::string actual) {
  CheckRecord r;
  r.check = check;
  r.outcome = Outcome::Broken;
  r.expected = std::move(expected);
  r.actual = std::move(actual);
  r.implicit = true;
  if (step_index < script_size) r.step = step_index;
  transcript.check(r);
}

void Run::negotiated(const std::string& version, const std::string& how) {
  client.negotiated_version = version;
  transcript.event("negotiated protocol version " + version + (how.empty() ? "" : " (" + how + ")"),
                   {{"negotiated", version}, {"step", step_index}});
}

bool Run::send_messages(const std::vector<Json>& frames, const SendOptions& options,
                        const std::string* label) {
  std::vector<std::string> texts;
  texts.reserve(frames.size());
  for (const auto& frame : frames) texts.push_back(safe_dump(frame));
  const auto result = channel.send(texts, options);
  for (std::size_t i = 0; i < result.done.size(); ++i) {
    Json extra = Json::object();
    if (options.mode == WriteMode::Coalesced && frames.size() > 1)
      extra["coalesced"] = frames.size();
    if (label) extra["label"] = *label;
    if (i < result.streams.size() && !result.streams[i].empty())
      extra["stream"] = result.streams[i];
    transcript.frame(Direction::ServerToClient, texts[i], &frames[i], result.writes[i],
                     std::move(extra));
    SentFrame sent{frames[i], result.done[i], client.client_requests};
    all_sent.push_back(sent);
    if (label) labels[*label].push_back(std::move(sent));
  }
  if (!result.ok) {
    transcript.event("write failed after " + std::to_string(result.done.size()) + " of " +
                         std::to_string(frames.size()) + " frames: " + result.error,
                     {{"error", result.error}});
  }
  return result.ok;
}

bool Run::send_batch(const std::vector<Json>& frames, const SendOptions& options,
                     const std::string* label) {
  const Json batch = Json(frames);
  const std::string text = safe_dump(batch);
  const auto result = channel.send({text}, options);
  if (!result.done.empty()) {
    Json extra = {{"batch", frames.size()}};
    if (label) extra["label"] = *label;
    if (!result.streams.empty() && !result.streams.front().empty())
      extra["stream"] = result.streams.front();
    transcript.frame(Direction::ServerToClient, text, &batch, result.writes.front(),
                     std::move(extra));
    for (const auto& frame : frames) {
      SentFrame sent{frame, result.done.front(), client.client_requests};
      all_sent.push_back(sent);
      if (label) labels[*label].push_back(std::move(sent));
    }
  }
  if (!result.ok) transcript.event("write failed: " + result.error, {{"error", result.error}});
  return result.ok;
}

bool Run::send_one(const Json& frame, const std::string& route) {
  SendOptions options;
  options.route = route;
  return send_messages({frame}, options);
}

std::optional<std::string> Run::route_of(const std::string& on) {
  if (on.rfind("post:", 0) != 0) return on;
  const auto it = captures.find(on.substr(5));
  if (it == captures.end() || !it->second.contains("id")) {
    transcript.event("cannot route to \"" + on + "\": no captured request with an id");
    stop_reason = "bad route";
    return std::nullopt;
  }
  return "post:" + safe_dump(it->second["id"]);
}

StepResult Run::after_wait(Pump why) {
  if (why == Pump::CaseDeadline || why == Pump::Interrupted) {
    abort_reason = why;
    return StepResult::Abort;
  }
  return StepResult::Failed;
}

}  // namespace mcpping
