#include "conformance/serve_session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "conformance/case_plan.hpp"
#include "conformance/mock_watch.hpp"
#include "core/driver_op.hpp"
#include "core/text.hpp"
#include "core/timing.hpp"
#include "core/transport.hpp"
#include "reports/evidence.hpp"

namespace mcpping {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

// The name `expect_ms` keeps, in a served script, where a fixture names it for a step.
constexpr const char* kCataloguedExpect = "catalogue_expect_ms";

std::string timeout_text(const Json& step) {
  if (!step.contains("timeout_ms")) return "";
  return ", with a request timeout of " + safe_dump(step["timeout_ms"]) + " ms";
}

std::string tool_call_text(const Json& call) {
  return "the tool " + safe_dump(call.value("name", Json(""))) + " with " +
         shorten(safe_dump(call.value("arguments", Json::object())), 200);
}

std::string transport_name(const std::string& transport) {
  return std::string(traits_of(parse_transport(transport)).display_name);
}

// Why the wait ended, for a person; `end_reason` is the transcript's `end` record's.
std::string why_it_stopped(const ScriptEndWait& wait, const ServeOptions& options,
                           const std::string& end_reason) {
  switch (wait.end) {
    case ScriptEnd::kEnded:
      if (end_reason == "eof") return "the script ended: the client closed the connection";
      if (end_reason == "deadline") return "the script ended: the case deadline passed";
      if (end_reason == "output closed") return "the script ended: it closed the server's output";
      return "the script ended (" + end_reason + ")";
    case ScriptEnd::kServerExited:
      return "the mock server exited without ending its script";
    case ScriptEnd::kInterrupted:
      return "interrupted (SIG" + std::string(sigabbrev_np(wait.signal)) +
             "): the mock server was stopped; judging what came";
    case ScriptEnd::kNeverStarted:
      return "no client started the mock server within " + std::to_string(options.wait_ms) + " ms";
    case ScriptEnd::kOverstayed:
      return "the mock server still ran after the case deadline: it was stopped";
  }
  return "";
}

// A person drives the client: told what to give it and what to have it do, then awaited until
// the script ends or a SIGINT/SIGTERM/SIGHUP.
class PersonAtTheClient final : public CaseClient {
 public:
  PersonAtTheClient(const ServeOptions& options, std::ostream& out)
      : options_(options), out_(out) {}

  Json script(const CaseContext&, Json resolved) const override {
    return human_paced_script(std::move(resolved), options_.wait_ms);
  }

  ClientEnd play(const CaseContext& c, const Json& server) override {
    instruct(c, server);
    // Over HTTP the server is up already; over stdio the client starts it when it connects.
    const milliseconds wait(options_.wait_ms);
    const bool stdio = server.contains("command");
    ended_ =
        wait_for_script_end(c.dir, stdio ? wait : c.grace * 2, wait * 2 + kMockWatchdog + c.grace);
    const bool ending_by_itself =
        ended_.end == ScriptEnd::kEnded || ended_.end == ScriptEnd::kServerExited;
    return {std::nullopt, ending_by_itself ? MockStop::kAfterGrace : MockStop::kTerminateFirst};
  }

  void observe(const CaseContext&, CaseObservations& observed) override {
    out_ << why_it_stopped(ended_, options_, observed.transcript.end_reason) << "\n";
  }

  void annotate(Json& verdict) const override {
    verdict["mode"] = "serve";
    verdict["wait_ms"] = options_.wait_ms;
  }

 private:
  void instruct(const CaseContext& c, const Json& server) {
    const Scenario& scenario = *c.planned.scenario;
    out_ << "mcp-ping-conformance serve: " << scenario.id << " over "
         << transport_name(options_.transport) << ", revision " << options_.revision << "\n  "
         << scenario.title << "\n  " << scenario.description << "\n\n";
    if (server.contains("command")) {
      out_ << "Configure your client to start this MCP server over stdio:\n"
           << stdio_server_text(server["command"].get<std::vector<std::string>>());
    } else {
      out_ << "Point your client at this MCP server (" << transport_name(options_.transport)
           << "):\n  url: " << server["url"].get<std::string>() << "\n";
    }
    out_ << "\nThen have your client, in this order (offering protocol version "
         << options_.revision << "):\n";
    for (std::size_t i = 0; i < c.steps.size(); ++i) {
      out_ << "  " << i + 1 << ". " << client_step_text(c.steps[i], options_.transport) << "\n";
    }
    out_ << "\nWaiting up to " << options_.wait_ms
         << " ms for your client's first contact, then up to " << options_.wait_ms
         << " ms for the script to end (Ctrl-C stops the server and judges what came)...\n"
         << std::flush;
  }

  const ServeOptions& options_;
  std::ostream& out_;
  ScriptEndWait ended_;
};

}  // namespace

const Scenario& pick_served_case(const std::vector<Scenario>& catalogue,
                                 const ServeOptions& options) {
  std::vector<const Scenario*> matches;
  const auto exact = std::find_if(catalogue.begin(), catalogue.end(),
                                  [&](const Scenario& s) { return s.id == options.scenario; });
  try {
    // An exact id wins, whatever else it matches.
    matches = exact != catalogue.end() ? std::vector{&*exact}
                                       : select_scenarios(catalogue, {{options.scenario}, {}});
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (matches.size() > 1) {
    std::vector<std::string> listed;
    for (std::size_t i = 0; i < matches.size() && i < 8; ++i) listed.push_back(matches[i]->id);
    if (listed.size() < matches.size())
      listed.push_back("and " + std::to_string(matches.size() - listed.size()) + " more");
    throw UsageError("--scenario '" + options.scenario + "' matches " +
                     std::to_string(matches.size()) +
                     " cases; serve runs one: " + join(listed, ", "));
  }
  const Scenario* picked = matches.front();
  if (!picked->runs_on(options.transport)) {
    const auto why = picked->not_on.find(options.transport);
    throw UsageError(picked->id + " does not run on " + options.transport +
                     (why != picked->not_on.end() ? ": " + why->second : std::string()) +
                     "; it runs on " + join(picked->transports, ", "));
  }
  return *picked;
}

Json human_paced_script(Json script, long wait_ms) {
  Json& timeouts = script["timeouts"];
  timeouts[kCataloguedExpect] = timeouts["expect_ms"];
  for (auto& step : script["script"]) {
    for (const char* key : {"within", "window"}) {
      if (step.contains(key) && step[key] == "expect_ms") step[key] = kCataloguedExpect;
    }
  }
  for (const char* bound : {"expect_ms", "case_deadline_ms", "startup_ms"})
    timeouts[bound] = static_cast<double>(wait_ms);
  return script;
}

std::string client_step_text(const Json& step, const std::string& transport) {
  const auto op = find_driver_op(step.value("op", ""));
  if (op == DriverOp::Connect) {
    return is_http_transport(transport) ? "connect to the URL above and initialize"
                                        : "connect: start the server above and initialize";
  }
  if (op == DriverOp::CallTool) return "call " + tool_call_text(step) + timeout_text(step);
  if (op == DriverOp::CallToolsConcurrently) {
    std::vector<std::string> calls;
    for (const auto& call : step.value("calls", Json::array()))
      calls.push_back(tool_call_text(call));
    return "call at once, each without waiting for the others: " + join(calls, "; ");
  }
  if (op == DriverOp::ListTools) return "list the tools" + timeout_text(step);
  if (op == DriverOp::Ping) return "send a ping" + timeout_text(step);
  if (op == DriverOp::Idle)
    return "stay idle for " + safe_dump(step.value("ms", Json(0))) + " ms: no request";
  if (op == DriverOp::Close) return "close the connection";
  return "do " + shorten(safe_dump(step), 300);
}

std::string stdio_server_text(const std::vector<std::string>& argv) {
  std::vector<std::string> quoted;
  for (const auto& word : argv) quoted.push_back(shell_quote(word));
  const Json args(std::vector<std::string>(argv.begin() + 1, argv.end()));
  const Json entry = {
      {"mcpServers", {{"mcp-ping-conformance", {{"command", argv.front()}, {"args", args}}}}}};
  return "  command line: " + join(quoted, " ") + "\n  argv (JSON): " + Json(argv).dump() +
         "\n  mcpServers entry: " + entry.dump() + "\n";
}

std::string served_case_report(const CaseResult& result) {
  std::ostringstream out;
  if (!result.checks.empty() || !result.not_judged.empty()) out << "checks:\n";
  for (const auto& check : result.checks) {
    char verdict[32];
    std::snprintf(verdict, sizeof verdict, "%-13s", std::string(to_string(check.verdict)).c_str());
    out << "  " << verdict << " " << check_headline(check) << "\n";
  }
  std::vector<const NotJudgedCheck*> by_driver, others;
  for (const auto& check : result.not_judged)
    (check.cause == NotJudgedCheck::Cause::kNoDriver ? by_driver : others).push_back(&check);
  for (const auto* check : others) out << "  not judged    " << not_judged_line(*check) << "\n";
  if (!by_driver.empty()) {
    out << "  not judged (" << kNoDriverInServe << "): what a driver would check, yours to see\n";
    for (const auto* check : by_driver) {
      out << "    [" << to_string(check->level) << "] " << check->id << " \u2014 "
          << shorten(check->expected, 300) << "\n";
    }
  }
  if (result.verdict != Verdict::Pass) out << evidence_text(result);
  for (const auto& finding : collect_findings({result}))
    out << "finding: " << finding_line(finding) << "\n";
  out << to_string(result.verdict) << "  " << result.case_id << " (" << result.transport << ")";
  if (!result.evidence_dir.empty()) out << "  evidence in " << result.evidence_dir.string();
  out << "\n";
  return out.str();
}

int served_exit_status(const CaseResult& result) {
  RunResult run;
  run.cases = {result};
  run.findings = collect_findings(run.cases);
  return exit_code(run_status(run));
}

int serve(const ServeOptions& options, const std::vector<Scenario>& catalogue, SuiteSetup setup,
          std::ostream& out) {
  // First: a Ctrl-C from here on is an event of the wait, never a death that leaves the HTTP
  // mock server running.
  block_shutdown_signals();
  const Scenario& scenario = pick_served_case(catalogue, options);
  const PlanRequest request{
      {scenario.id}, options.transport, options.revision, {options.transport}};
  const PlannedCase planned = plan_cases(catalogue, request).front();
  // The same applicability as `run`: a case outside the revision has nothing to serve.
  if (planned.unsupported) {
    out << "nothing to serve: " << *planned.unsupported << "\n"
        << "UNSUPPORTED  " << scenario.id << " (" << options.transport << ")\n";
    return 0;  // UNSUPPORTED fails nothing
  }
  setup.revision = options.revision;
  setup.timeout_multiplier = options.timeout_multiplier;
  fs::create_directories(options.report_dir);
  setup.report_dir = fs::canonical(options.report_dir);
  PersonAtTheClient person(options, out);
  const CaseResult result = run_case(planned, setup, person);
  out << served_case_report(result) << std::flush;
  return served_exit_status(result);
}

}  // namespace mcpping
