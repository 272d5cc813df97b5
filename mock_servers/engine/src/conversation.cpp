#include "conversation.hpp"

#include "core/text.hpp"

namespace mcpping {

namespace {

std::vector<const Step*> steps_of(const ParsedScript& script) {
  std::vector<const Step*> steps;
  for (const auto& step : script.steps) steps.push_back(step.step.get());
  return steps;
}

}  // namespace

Conversation::Conversation(const Json& resolved, const ParsedScript& script, Channel& channel,
                           Transcript& transcript)
    : channel_(channel),
      transcript_(transcript),
      defaults_(server_defaults_from(resolved)),
      timeouts_(resolved.at("timeouts").get<TimeoutTable>()),
      script_(steps_of(script)),
      clock_(timeout("startup_ms"), timeout("case_deadline_ms"), transcript),
      recorder_(transcript, script_),
      sender_(channel, transcript),
      inbox_(InboxParts{channel, transcript, clock_, recorder_, sender_, script_, defaults_,
                        resolved.at("line_cap_bytes").get<std::size_t>()}) {}

void Conversation::negotiated(const std::string& version, const std::string& how) {
  inbox_.negotiated(version);
  transcript_.event(
      "negotiated protocol version " + version + (how.empty() ? "" : " (" + how + ")"),
      {{"negotiated", version}, {"step", script_.index()}});
}

bool Conversation::answer(const std::string& as, const Json& request, const Json& result) {
  script_.captures()[as] = request;
  script_.captures()[as + "_result"] = result;
  script_.answered(as);
  return send_one(make_result(request["id"], result));
}

std::optional<std::string> Conversation::route_of(const std::string& on) {
  if (on.rfind("post:", 0) != 0) return on;
  const auto it = script_.captures().find(on.substr(5));
  if (it == script_.captures().end() || !it->second.contains("id")) {
    transcript_.event("cannot route to \"" + on + "\": no captured request with an id");
    stop_reason_ = "bad route";
    return std::nullopt;
  }
  return "post:" + safe_dump(it->second["id"]);
}

StepResult Conversation::after_wait(Pump why, std::string reason) {
  if (why == Pump::CaseDeadline || why == Pump::Interrupted) {
    abort_reason_ = why;
    return StepResult::Abort;
  }
  if (!reason.empty()) stop_reason_ = std::move(reason);
  return StepResult::Failed;
}

}  // namespace mcpping
