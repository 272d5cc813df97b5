#include "recorder.hpp"

#include "case_clock.hpp"
#include "client_inbox.hpp"
#include "core/check_registry.hpp"
#include "core/jsonrpc.hpp"
#include "core/text.hpp"

namespace mcpping {

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

void Recorder::record(const CheckDef& check, Outcome outcome, std::string expected,
                      std::string actual, std::vector<double> latency, Json details) {
  record_for_step(script_.index(), check, outcome, std::move(expected), std::move(actual),
                  std::move(latency), std::move(details));
}

void Recorder::record_implicit(const CheckDef& check, std::string expected, std::string actual) {
  record_for_step(script_.index(), check, Outcome::Broken, std::move(expected), std::move(actual),
                  {}, Json::object(), /*implicit=*/true);
}

void Recorder::record_for_step(std::size_t step, const CheckDef& check, Outcome outcome,
                               std::string expected, std::string actual,
                               std::vector<double> latency, Json details, bool implicit) {
  CheckRecord r;
  r.check = check;
  r.outcome = outcome;
  r.expected = std::move(expected);
  r.actual = std::move(actual);
  r.latency_ms = std::move(latency);
  r.details = std::move(details);
  r.implicit = implicit;
  if (step < script_.size()) r.step = step;
  transcript_.check(r);
}

bool Recorder::take_owed_initialized(const ClientMessage& message) {
  if (!owed_ || !is_notification(message.json) ||
      method_of(message.json) != "notifications/initialized")
    return false;
  // Over HTTP only the session the initialize started can owe it: a later session's
  // notification is that session's, not a late one for the first.
  if (!owed_->session.empty() && session_of(message) != owed_->session) return false;
  settle_owed(Outcome::Met, "; notifications/initialized " +
                                format_ms(std::max(0.0, elapsed_ms(owed_->since, message.at))) +
                                " ms after the response, late: the server had gone on (");
  return true;
}

void Recorder::settle_owed(Outcome outcome, const std::string& what) {
  record_for_step(owed_->step, builtin_check("handshake"), outcome,
                  std::string(builtin_expected("handshake")),
                  owed_->init_text + what + owed_->moved_on + ")");
  owed_.reset();
}

void Recorder::defer(std::function<void()> settle) {
  deferred_.push_back(Deferred{script_.index(), std::move(settle)});
}

void Recorder::settle_deferred() {
  if (owed_) {
    settle_owed(Outcome::Broken, "; no notifications/initialized by the end of the run (" +
                                     format_ms(elapsed_ms(owed_->since, Clock::now())) +
                                     " ms after the response); the server went on without it (");
  }
  const auto current = script_.index();
  auto pending = std::exchange(deferred_, {});
  for (auto& d : pending) {
    script_.move_to(d.step);
    d.settle();
  }
  script_.move_to(current);
}

}  // namespace mcpping
