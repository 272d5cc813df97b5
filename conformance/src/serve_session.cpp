#include "conformance/serve_session.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <optional>
#include <sstream>

#include "conformance/case_plan.hpp"
#include "conformance/case_runner.hpp"
#include "conformance/child_process.hpp"
#include "conformance/mock_watch.hpp"
#include "core/driver_op.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "core/timing.hpp"
#include "core/transcript_model.hpp"
#include "core/transport.hpp"
#include "reports/evidence.hpp"
#include "reports/json_report.hpp"

namespace mcpping {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

// The name `expect_ms` keeps, in a served script, where a fixture names it for a step.
constexpr const char* kCataloguedExpect = "catalogue_expect_ms";

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Ids a mistyped --scenario may have meant: the nearest by edit distance, and those that
// contain it.
std::vector<std::string> close_matches(const std::vector<Scenario>& catalogue,
                                       const std::string& given) {
  std::string plain = given;
  plain.erase(std::remove_if(plain.begin(), plain.end(),
                             [](char c) { return c == '*' || c == '?' || c == '[' || c == ']'; }),
              plain.end());
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const auto& scenario : catalogue) {
    const std::size_t distance = scenario.id.find(plain) != std::string::npos && !plain.empty()
                                     ? 0
                                     : edit_distance(plain, scenario.id);
    if (distance <= std::max<std::size_t>(3, plain.size() / 3)) {
      ranked.emplace_back(distance, scenario.id);
    }
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < ranked.size() && i < 5; ++i) ids.push_back(ranked[i].second);
  return ids;
}

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
      return std::string("interrupted (") +
             (wait.signal == SIGINT    ? "SIGINT"
              : wait.signal == SIGTERM ? "SIGTERM"
                                       : "SIGHUP") +
             "): the mock server was stopped; judging what came";
    case ScriptEnd::kNeverStarted:
      return "no client started the mock server within " + std::to_string(options.wait_ms) + " ms";
    case ScriptEnd::kOverstayed:
      return "the mock server still ran after the case deadline: it was stopped";
  }
  return "";
}

void write_served_verdict(const CaseResult& result, const ServeOptions& options) {
  Json verdict = to_json(result);
  verdict["mode"] = "serve";
  verdict["wait_ms"] = options.wait_ms;
  write_file(result.evidence_dir / "verdict.json",
             verdict.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

}  // namespace

const Scenario& pick_served_case(const std::vector<Scenario>& catalogue,
                                 const ServeOptions& options) {
  std::vector<const Scenario*> matches;
  for (const auto& scenario : catalogue) {
    if (scenario.id == options.scenario) {  // an exact id wins, whatever else it matches
      matches = {&scenario};
      break;
    }
    if (glob_matches(options.scenario, scenario.id)) matches.push_back(&scenario);
  }
  const std::string given = "--scenario '" + options.scenario + "'";
  if (matches.empty()) {
    const auto close = close_matches(catalogue, options.scenario);
    throw UsageError(given + " matches no case" +
                     (close.empty() ? "; see 'mcp-ping-conformance list'"
                                    : "; close matches: " + join(close, ", ")));
  }
  if (matches.size() > 1) {
    std::vector<std::string> listed;
    for (std::size_t i = 0; i < matches.size() && i < 8; ++i) listed.push_back(matches[i]->id);
    if (listed.size() < matches.size())
      listed.push_back("and " + std::to_string(matches.size() - listed.size()) + " more");
    throw UsageError(given + " matches " + std::to_string(matches.size()) +
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

Json human_paced_script(const Scenario& scenario, const Defaults& defaults,
                        const ServeOptions& options) {
  const RunSettings settings{options.transport, options.revision, options.timeout_multiplier};
  Json script = resolve_script(scenario, defaults, settings);
  Json& timeouts = script["timeouts"];
  timeouts[kCataloguedExpect] = timeouts["expect_ms"];
  for (auto& step : script["script"]) {
    for (const char* key : {"within", "window"}) {
      if (step.contains(key) && step[key] == "expect_ms") step[key] = kCataloguedExpect;
    }
  }
  timeouts["expect_ms"] = static_cast<double>(options.wait_ms);
  timeouts["case_deadline_ms"] = static_cast<double>(options.wait_ms);
  timeouts["startup_ms"] = static_cast<double>(options.wait_ms);
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

int serve(const ServeOptions& options, const std::vector<Scenario>& catalogue,
          const ServeSetup& setup, std::ostream& out) {
  // First: a Ctrl-C from here on is an event of the wait, never a death that leaves the HTTP
  // mock server running.
  block_shutdown_signals();
  const Scenario& scenario = pick_served_case(catalogue, options);
  CaseResult result = case_result_for(scenario, options.transport);

  // The same applicability as `run`: a case outside the revision has nothing to serve.
  const PlanRequest request{{}, options.transport, options.revision, {options.transport}};
  const auto planned = plan_cases({scenario}, request);
  if (!planned.empty() && planned.front().unsupported) {
    out << "nothing to serve: " << *planned.front().unsupported << "\n"
        << "UNSUPPORTED  " << scenario.id << " (" << options.transport << ")\n";
    return 0;  // UNSUPPORTED fails nothing
  }

  const auto started = std::chrono::steady_clock::now();
  fs::create_directories(options.report_dir);
  const fs::path dir =
      evidence_dir_for(fs::canonical(options.report_dir), options.transport, scenario.id);
  result.evidence_dir = dir;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path script_file = dir / "script.json";
  write_file(script_file, human_paced_script(scenario, setup.defaults, options).dump(2) + "\n");
  const Json steps =
      resolve_driver_steps(scenario, scaled_timeouts(setup.defaults, options.timeout_multiplier));
  const milliseconds grace = driver_grace(options.timeout_multiplier);
  const milliseconds wait(options.wait_ms);
  const bool stdio = !is_http_transport(options.transport);

  out << "mcp-ping-conformance serve: " << scenario.id << " over "
      << transport_name(options.transport) << ", revision " << options.revision << "\n  "
      << scenario.title << "\n  " << scenario.description << "\n\n";
  std::optional<BackgroundProcess> http_server;
  if (stdio) {
    out << "Configure your client to start this MCP server over stdio:\n"
        << stdio_server_text(mock_server_argv(setup.mock_stdio_server, script_file, dir));
  } else {
    http_server.emplace(mock_server_argv(setup.mock_http_server, script_file, dir),
                        dir / "mock.stderr");
    out << "Point your client at this MCP server (" << transport_name(options.transport) << "):\n"
        << "  url: " << read_server_url(*http_server, grace * 2, dir / "mock.stderr") << "\n";
  }
  out << "\nThen have your client, in this order (offering protocol version " << options.revision
      << "):\n";
  for (std::size_t i = 0; i < steps.size(); ++i) {
    out << "  " << i + 1 << ". " << client_step_text(steps[i], options.transport) << "\n";
  }
  out << "\nWaiting up to " << options.wait_ms << " ms for your client's first contact, then up to "
      << options.wait_ms
      << " ms for the script to end (Ctrl-C stops the server and judges what came)...\n"
      << std::flush;

  // Over HTTP the server is up already; over stdio the client starts it when it connects.
  const ScriptEndWait ended =
      wait_for_script_end(dir, stdio ? wait : grace * 2, wait * 2 + kMockWatchdog + grace);
  if (http_server) {
    http_server->stop(grace);
  } else {
    const bool ending_by_itself =
        ended.end == ScriptEnd::kEnded || ended.end == ScriptEnd::kServerExited;
    stop_mock_server(dir / "mock.pid", grace,
                     ending_by_itself ? MockStop::kAfterGrace : MockStop::kTerminateFirst);
  }

  CaseObservations observed;
  observed.transport = options.transport;
  observed.revision = options.revision;
  observed.driver = std::nullopt;  // a person drove the client
  observed.transcript = read_transcript(dir / "transcript.jsonl");
  out << why_it_stopped(ended, options, observed.transcript.end_reason) << "\n";
  judge_case(result, scenario, observed, setup.refs);
  result.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  write_served_verdict(result, options);
  out << served_case_report(result) << std::flush;
  return served_exit_status(result);
}

}  // namespace mcpping
