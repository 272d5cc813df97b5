// The step kinds of steps/step_kinds.def as a table, and the script parser that reads a step
// by its kind. The generic rules (one action per step, the key whitelist, "transports",
// HTTP-only and stdio-only steps) apply to every kind by themselves.
#include <algorithm>

#include "core/text.hpp"
#include "core/transport.hpp"
#include "engine/script.hpp"
#include "step_parser.hpp"

namespace mcpping {

namespace steps {
#define STEP_KIND(action, ...) std::unique_ptr<Step> parse_##action(StepParser&);
#include "steps/step_kinds.def"
#undef STEP_KIND
}  // namespace steps

Step::~Step() = default;

const std::vector<StepKind>& step_kinds() {
  static const std::vector<StepKind> kinds = {
#define STEP_KIND(action, transports, ...) \
  {#action, {__VA_ARGS__}, StepTransports::transports, steps::parse_##action},
#include "steps/step_kinds.def"
#undef STEP_KIND
  };
  return kinds;
}

namespace {

// The step's kind: exactly one of its keys is an action.
const StepKind& kind_of(const FixtureReader& c, const Json& step, const std::string& p) {
  std::vector<const StepKind*> found;
  for (const auto& kind : step_kinds()) {
    if (step.contains(kind.name)) found.push_back(&kind);
  }
  if (found.size() != 1) {
    // Every kind when none was found, else those the step has, in the order of its keys.
    std::vector<std::string> names;
    for (const auto& kind : step_kinds())
      if (found.empty() || step.contains(kind.name)) names.emplace_back(kind.name);
    std::sort(names.begin(), names.end());
    c.fail(p, found.empty() ? "no action (known: " + join(names, ", ") + ")"
                            : "more than one action: " + join(names, ", "));
  }
  return *found.front();
}

// The step's own "transports", checked against the case's.
std::vector<std::string> step_transports(const FixtureReader& c, const Json& step,
                                         const std::string& p,
                                         const std::vector<std::string>* transports) {
  std::vector<std::string> out;
  if (!step.contains("transports")) return out;
  const auto& list = c.array(step["transports"], p + "/transports");
  if (list.empty()) c.fail(p + "/transports", "must name at least one transport");
  for (std::size_t k = 0; k < list.size(); ++k) {
    const auto name = c.nonempty_string(list[k], p + "/transports/" + std::to_string(k));
    if (transports &&
        std::find(transports->begin(), transports->end(), name) == transports->end()) {
      c.fail(p + "/transports/" + std::to_string(k),
             "\"" + name + "\" is not one of the case's transports");
    }
    out.push_back(name);
  }
  return out;
}

void check_transports(const FixtureReader& c, const StepKind& kind, const std::string& p,
                      const std::vector<std::string>* effective) {
  if (!effective || kind.transports == StepTransports::Any) return;
  const std::string action(kind.name);
  const auto is = [](Transport transport) {
    return [transport](const std::string& t) { return find_transport(t) == transport; };
  };
  const bool has_stdio = std::any_of(effective->begin(), effective->end(), is(Transport::Stdio));
  const bool has_http = !std::all_of(effective->begin(), effective->end(), is(Transport::Stdio));
  if (has_stdio && kind.transports == StepTransports::HttpOnly)
    c.fail(p + "/" + action, action + " is an HTTP step: the case cannot list \"stdio\"");
  if (has_http && kind.transports == StepTransports::StdioOnly)
    c.fail(p + "/" + action,
           action + " is a stdio step: the case can list only \"stdio\" as its transport");
  const bool only_streamable =
      std::all_of(effective->begin(), effective->end(), is(Transport::StreamableHttp));
  if (!only_streamable && kind.transports == StepTransports::StreamableHttpOnly)
    c.fail(p + "/" + action, action +
                                 " is a Streamable HTTP step (resumable streams): the case can "
                                 "list only \"streamable-http\" as its transport");
}

}  // namespace

ParsedScript parse_script(const Json& script, const ScriptContext& context) {
  const FixtureReader c(context.file);
  c.array(script, "/script");
  if (script.empty()) c.fail("/script", "must not be empty");
  ScriptState state{c, *context.timeouts, context.refs, script.size(), {}, {}, {}, {}};
  ParsedScript parsed;
  for (std::size_t i = 0; i < script.size(); ++i) {
    const auto p = "/script/" + std::to_string(i);
    const auto& step = c.object(script[i], p);
    // A step limited to some transports runs only there, and so do the checks it declares.
    const auto transports = step_transports(c, step, p, context.transports);
    const auto& kind = kind_of(c, step, p);
    check_transports(c, kind, p, transports.empty() ? context.transports : &transports);
    auto allowed = kind.keys;
    allowed.emplace_back(kind.name);
    allowed.emplace_back("transports");
    c.only_keys(step, allowed, p);
    const auto first_check = state.checks.size();
    StepParser parser(state, step, i, kind.name);
    parsed.steps.push_back(ScriptStep{kind.name, kind.parse(parser)});
    for (auto k = first_check; k < state.checks.size(); ++k)
      state.checks[k].transports = transports;
  }
  parsed.checks = std::move(state.checks);
  return parsed;
}

ScriptSummary validate_script(const Json& script, const ScriptContext& context) {
  auto parsed = parse_script(script, context);
  ScriptSummary summary;
  summary.checks = std::move(parsed.checks);
  for (const auto& step : parsed.steps) {
    if (const auto* wait = step.step->fixed_wait()) summary.fixed_waits.push_back(*wait);
  }
  return summary;
}

ParsedScript parse_resolved_script(const Json& resolved, const std::string& file) {
  const auto timeouts = validate_resolved_header(resolved, file);
  const std::vector<std::string> transports = {resolved["transport"].get<std::string>()};
  return parse_script(resolved["script"], ScriptContext{file, &timeouts, nullptr, &transports});
}

}  // namespace mcpping
