#include "conformance/official_harness.hpp"

#include <sstream>

#include "conformance/catalogue_json.hpp"
#include "core/driver_op.hpp"
#include "core/text.hpp"
#include "core/transport.hpp"
#include "reports/markdown.hpp"

namespace mcpping {

namespace {

std::string op_of(const Json& step) { return step.value("op", ""); }

bool is_op(const Json& step, DriverOp op) { return op_of(step) == to_string(op); }

std::string ops_of(const Json& steps) {
  std::string out;
  for (const auto& step : steps) out += (out.empty() ? "" : ", ") + op_of(step);
  return out;
}

HarnessFit unfit(std::string why) { return HarnessFit{std::nullopt, std::move(why), false}; }

// Rule 2: connect, at most one request the harness's tools/list can stand for, close.
std::optional<std::string> steps_misfit(const Json& steps) {
  const bool shape = (steps.size() == 2 || steps.size() == 3) &&
                     is_op(steps.front(), DriverOp::Connect) &&
                     is_op(steps.back(), DriverOp::Close);
  const bool request_fits =
      steps.size() != 3 ||
      ((is_op(steps[1], DriverOp::CallTool) || is_op(steps[1], DriverOp::ListTools)) &&
       !steps[1].contains("request_timeout"));
  if (shape && request_fits) return std::nullopt;
  return "a harness only connects, lists tools and closes; this case's client steps are " +
         ops_of(steps) +
         (shape && steps.size() == 3 && steps[1].contains("request_timeout")
              ? " with a request timeout"
              : "");
}

// Rule 3: a driver check the harness's exit status can stand for.
std::optional<std::string> check_misfit(const DriverCheck& check, const Json& steps) {
  const bool on_request = check.step + 1 < steps.size();
  const bool expects_ok =
      check.expect.is_object() && check.expect.contains("ok") && check.expect["ok"] == Json(true);
  if (on_request && expects_ok) return std::nullopt;
  return "its check " + check.check.id + " judges what the client returned for step " +
         std::to_string(check.step) + " (" + op_of(steps[check.step]) +
         "), which a harness never prints";
}

// Rule 4: the script's wait for the tools/call becomes a wait for the harness's tools/list.
std::optional<std::string> rewrite_script(Json& script) {
  for (auto& step : script) {
    if (!step.contains("expect") || !step["expect"].is_object()) continue;
    Json& pattern = step["expect"];
    if (pattern.value("method", Json()) != Json("tools/call")) continue;
    if (pattern != Json{{"method", "tools/call"}}) {
      return "its script waits for a tools/call with particular arguments; a harness sends "
             "tools/list";
    }
    pattern["method"] = "tools/list";
  }
  return std::nullopt;
}

}  // namespace

HarnessFit fit_official_harness(const Scenario& scenario, const std::string& transport) {
  if (find_transport(transport) != Transport::StreamableHttp) {
    return HarnessFit{std::nullopt,
                      "the official suite's client harnesses speak Streamable HTTP only", true};
  }
  if (auto why = steps_misfit(scenario.driver_steps)) return unfit(std::move(*why));
  for (const auto& check : scenario.driver_checks) {
    if (auto why = check_misfit(check, scenario.driver_steps)) return unfit(std::move(*why));
  }
  Scenario adapted = scenario;
  if (auto why = rewrite_script(adapted.script)) return unfit(std::move(*why));
  adapted.driver_steps = Json::array();
  for (const auto op : {DriverOp::Connect, DriverOp::ListTools, DriverOp::Close})
    adapted.driver_steps.push_back({{"op", to_string(op)}});
  // Its exit stands in for the driver checks, at their level: after the server's own violation
  // a failed call is SHOULD or MAY for a driver, and so it is for a harness.
  if (!scenario.driver_checks.empty()) {
    adapted.harness_exit = scenario.driver_checks.front().check.level;
    for (const auto& check : scenario.driver_checks)
      adapted.harness_exit = more_demanding(adapted.harness_exit, check.check.level);
  }
  adapted.driver_checks.clear();
  return HarnessFit{std::move(adapted), "", false};
}

void plan_official_harness(std::vector<PlannedCase>& cases, std::deque<Scenario>& adapted) {
  for (auto& planned : cases) {
    if (planned.unsupported) continue;  // the revision already rules it out
    HarnessFit fit = fit_official_harness(*planned.scenario, planned.transport);
    if (fit.scenario) {
      adapted.push_back(std::move(*fit.scenario));
      planned.scenario = &adapted.back();
    } else {
      planned.unsupported = "the official harness cannot run it: " + fit.why_not;
      planned.unsupported_kind = fit.wrong_transport ? CaseResult::Unsupported::kTransport
                                                     : CaseResult::Unsupported::kDriver;
    }
  }
}

Json official_harness_script(Json resolved) {
  resolved["server"]["tools"] = Json::array();
  return resolved;
}

DriverInvocation official_harness_invocation(const std::vector<std::string>& harness_argv,
                                             const std::string& case_id,
                                             const std::string& transport,
                                             const std::string& revision, const std::string& url) {
  DriverInvocation invocation;
  invocation.argv = harness_argv;
  invocation.argv.push_back(url);
  const std::string scenario(kOfficialScenario);
  invocation.env = {
      {"MCP_CONFORMANCE_SCENARIO", scenario},
      {"MCP_CONFORMANCE_PROTOCOL_VERSION", revision},
      {"MCP_CONFORMANCE_CONTEXT",
       Json{{"name", scenario}, {"case", case_id}, {"transport", transport}}.dump()},
  };
  return invocation;
}

std::string official_harness_listing(const std::vector<Scenario>& catalogue, bool markdown) {
  std::ostringstream covered, others;
  std::size_t count = 0;
  const std::string streamable(to_string(Transport::StreamableHttp));
  for (const auto& scenario : catalogue) {
    if (!scenario.runs_on(streamable)) {
      others << "| `" << scenario.id << "` | runs on "
             << markdown_cell(join(scenario.transports, ", ")) << " only |\n";
      continue;
    }
    const HarnessFit fit = fit_official_harness(scenario, streamable);
    if (!fit.scenario) {
      others << "| `" << scenario.id << "` | " << markdown_cell(fit.why_not) << " |\n";
      continue;
    }
    ++count;
    const Json& steps = scenario.driver_steps;
    if (markdown) {
      covered << "| `" << scenario.id << "` | " << markdown_cell(scenario.title) << " | "
              << (steps.size() == 3 ? op_of(steps[1]) : "(none)") << " |\n";
    } else {
      covered << scenario.id << "  " << streamable << "  " << scenario.title << "\n";
    }
  }
  if (!markdown) return covered.str();
  std::ostringstream out;
  out << "<!-- Generated by `mcp-ping-conformance list --harness official --markdown`; do not "
         "edit. -->\n"
      << "# Cases an official-suite client harness runs\n\n"
      << count << " cases, on Streamable HTTP, each run as the official scenario `"
      << kOfficialScenario << "` (docs/official-harness.md). The last column names the "
      << "driver step the harness's `tools/list` stands in for.\n\n"
      << "| case | title | tools/list stands in for |\n|---|---|---|\n"
      << covered.str() << "\n## Not covered\n\n"
      << "Every case on stdio and on legacy HTTP+SSE is UNSUPPORTED: the official suite's "
         "client harnesses speak Streamable HTTP only. The other cases, and why:\n\n"
      << "| case | why not |\n|---|---|\n"
      << others.str();
  return out.str();
}

}  // namespace mcpping
