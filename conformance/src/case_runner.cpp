#include "conformance/case_runner.hpp"

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <utility>

#include "conformance/child_process.hpp"
#include "conformance/driver_protocol.hpp"
#include "conformance/driver_session.hpp"
#include "conformance/evaluation.hpp"
#include "conformance/mock_watch.hpp"
#include "conformance/official_harness.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "core/timing.hpp"
#include "core/transcript_model.hpp"
#include "core/transport.hpp"
#include "reports/json_report.hpp"

namespace mcpping {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path evidence_dir_for(const fs::path& report_dir, const std::string& transport,
                          const std::string& case_id) {
  return report_dir / "cases" / transport / case_id;
}

namespace {

std::chrono::milliseconds scaled_ms(const TimeoutTable& table, const std::string& name) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(table.at(name))));
}

// Whether a driver past its deadline gets more time: while the mock server runs (its own
// deadline runs from the client's first contact), once more after it ended, and, over stdio,
// where the client starts the server, while none has started and the start-up budget lasts.
std::function<bool()> deadline_extension(fs::path pid_file, std::chrono::milliseconds startup) {
  return [pid_file = std::move(pid_file), until = std::chrono::steady_clock::now() + startup,
          gone_seen = false]() mutable {
    if (running_mock_pid(pid_file)) return true;
    if (!fs::exists(pid_file)) return std::chrono::steady_clock::now() < until;
    return !std::exchange(gone_seen, true);
  };
}

// A script that reruns the case by hand, for the evidence folder. Over stdio the client
// starts the mock server itself. Over HTTP the server the runner started is gone: the script
// starts a new one on the same resolved script, evidence in a fresh folder, and hands its
// URL to the driver in place of the old one.
std::string reproduce_script(const DriverInvocation& invocation, const std::string& old_url,
                             const fs::path& http_server, const fs::path& script_file) {
  std::string script = "#!/bin/sh\n# Reruns this case's driver against the same script.\nset -eu\n";
  // Where the driver ran: a command given relative to it (`npx tsx client.ts`, a relative
  // report folder) resolves from there, wherever the script is run from.
  script += "cd " + shell_quote(fs::current_path().string()) + "\n";
  const auto with_url = [&](const std::string& text) {
    if (old_url.empty()) return shell_quote(text);
    std::string quoted;
    std::size_t from = 0;
    for (std::size_t at; (at = text.find(old_url, from)) != std::string::npos;
         from = at + old_url.size()) {
      quoted += shell_quote(text.substr(from, at - from)) + "\"$url\"";
    }
    return quoted + shell_quote(text.substr(from));
  };
  if (!old_url.empty()) {
    script += "out=$(mktemp -d)\n";
    script += shell_quote(http_server.string()) + " --script " + shell_quote(script_file.string()) +
              " --evidence-dir \"$out\" >\"$out/url\" &\n";
    script += "server=$!\ntrap 'kill $server 2>/dev/null || true' EXIT\n";
    script += "for _ in $(seq 1 100); do [ -s \"$out/url\" ] && break; sleep 0.1; done\n";
    script += "url=$(sed -n 's/.*\"url\":\"\\([^\"]*\\)\".*/\\1/p' \"$out/url\")\n";
    script +=
        "[ -n \"$url\" ] || { echo \"the mock server did not start: see $out\" >&2; exit 2; }\n";
    script += "echo \"mock server at $url, evidence in $out\" >&2\n";
  }
  for (const auto& [name, value] : invocation.env) {
    script += "export " + name + "=" + with_url(value) + "\n";
  }
  script += old_url.empty() ? "exec" : "status=0\n";
  std::string command;
  for (const auto& word : invocation.argv) command += " " + with_url(word);
  if (old_url.empty()) return script + command + "\n";
  return script + command.substr(1) + " || status=$?\nexit $status\n";
}

}  // namespace

std::string read_server_url(BackgroundProcess& server, std::chrono::milliseconds timeout,
                            const fs::path& stderr_file) {
  const auto line = server.first_line(timeout);
  const json parsed = line ? json::parse(*line, nullptr, false) : json();
  if (!parsed.is_object() || !parsed.contains("url") || !parsed["url"].is_string()) {
    const std::string why =
        line ? "printed " + *line
             : "printed no URL within " + std::to_string(timeout.count()) + " ms";
    throw std::runtime_error("the HTTP mock server did not start: it " + why + "; " +
                             server.stop(std::chrono::milliseconds(500)) +
                             "; stderr: " + read_file_or_empty(stderr_file).substr(0, 400));
  }
  return parsed["url"].get<std::string>();
}

CaseResult case_result_for(const Scenario& scenario, const std::string& transport) {
  CaseResult result;
  result.case_id = scenario.id;
  result.transport = transport;
  result.title = scenario.title;
  result.description = scenario.description;
  result.catches = scenario.catches;
  return result;
}

std::vector<std::string> mock_server_argv(const fs::path& server, const fs::path& script_file,
                                          const fs::path& dir) {
  return {server.string(), "--script", script_file.string(), "--evidence-dir", dir.string()};
}

void judge_case(CaseResult& result, const Scenario& scenario, const CaseObservations& observed,
                const SpecReferences& refs) {
  Evaluation evaluation = evaluate_case(scenario, observed, refs);
  result.verdict = evaluation.verdict;
  result.reason = evaluation.reason;
  result.unsupported = evaluation.unsupported;
  result.checks = std::move(evaluation.checks);
  result.not_judged = std::move(evaluation.not_judged);
  if (result.verdict != Verdict::Pass) {
    result.transcript_excerpt = transcript_excerpt(observed.transcript, evaluation.focus_ms, 12, 4);
  }
}

namespace {

// One planned case run in its evidence folder: the resolved script, the mock server, the
// driver, and what they left behind.
class CaseRun {
 public:
  CaseRun(const PlannedCase& planned, const SuiteSetup& setup, fs::path dir)
      : planned_(planned),
        setup_(setup),
        dir_(std::move(dir)),
        script_file_(dir_ / "script.json"),
        timeouts_(scaled_timeouts(setup.defaults, setup.timeout_multiplier)),
        grace_(driver_grace(setup.timeout_multiplier)),
        steps_(resolve_driver_steps(*planned.scenario, timeouts_)) {}

  CaseObservations run(DriverSession* session) {
    write_script();
    const json server = start_mock_server();
    const DriverInvocation invocation = driver_invocation(server);
    write_file(dir_ / "reproduce.sh", reproduce_script(invocation, server.value("url", ""),
                                                       setup_.mock_http_server, script_file_));
    fs::permissions(dir_ / "reproduce.sh", fs::perms::owner_exec | fs::perms::group_exec,
                    fs::perm_options::add);
    const SpawnSpec spec = driver_spec(invocation);
    CaseObservations observed;
    observed.transport = planned_.transport;
    observed.revision = setup_.revision;
    observed.official_harness = setup_.official_harness;
    observed.driver = session ? session->run_case(invocation, spec) : run_child(spec);
    stop_mock_server_after_driver();
    read_evidence(observed, session);
    return observed;
  }

 private:
  void write_script() {
    const RunSettings settings{planned_.transport, setup_.revision, setup_.timeout_multiplier};
    Json script = resolve_script(*planned_.scenario, setup_.defaults, settings);
    if (setup_.official_harness) script = official_harness_script(std::move(script));
    write_file(script_file_, script.dump(2) + "\n");
  }

  // stdio: the client spawns the mock server. HTTP: the runner starts it and hands the
  // driver its URL.
  json start_mock_server() {
    if (!is_http_transport(planned_.transport)) {
      return {{"command", mock_server_argv(setup_.mock_stdio_server, script_file_, dir_)}};
    }
    http_server_.emplace(mock_server_argv(setup_.mock_http_server, script_file_, dir_),
                         dir_ / "mock.stderr");
    return {{"url", read_server_url(*http_server_, grace_ * 2, dir_ / "mock.stderr")}};
  }

  DriverInvocation driver_invocation(const json& server) const {
    const auto& id = planned_.scenario->id;
    return setup_.official_harness
               ? official_harness_invocation(setup_.driver_argv, id, planned_.transport,
                                             setup_.revision, server.value("url", ""))
               : make_invocation(setup_.driver_argv, id, planned_.transport, setup_.revision,
                                 server, steps_);
  }

  // The mock server ends the script at the case deadline, which runs from the client's first
  // contact; the driver gets a little more to finish its close step before it counts as hung.
  // A client that started late has its deadline moved on while the mock server still runs,
  // and once more after it ended, up to the latest the script can end.
  SpawnSpec driver_spec(const DriverInvocation& invocation) const {
    SpawnSpec spec;
    spec.argv = invocation.argv;
    spec.extra_env = invocation.env;
    spec.stdout_file = dir_ / "client.stdout";
    spec.stderr_file = dir_ / "client.stderr";
    const auto deadline = scaled_ms(timeouts_, "case_deadline_ms");
    spec.deadline = deadline + grace_;
    spec.kill_grace = grace_;
    spec.output_drain = grace_;
    const auto startup = scaled_ms(timeouts_, "startup_ms");
    spec.deadline_limit = startup + deadline + kMockWatchdog + grace_ * 2;
    spec.extend_while = deadline_extension(dir_ / "mock.pid", startup);
    return spec;
  }

  void stop_mock_server_after_driver() {
    if (http_server_) {
      http_server_->stop(grace_);
    } else {
      // It normally exits with the client; one the client left running (in another process
      // group, ignoring end of file) is stopped, so no case leaves a process behind.
      stop_mock_server(dir_ / "mock.pid", grace_, MockStop::kAfterGrace);
    }
  }

  // The driver's step lines, the transcript, and the runner's own observation of it.
  void read_evidence(CaseObservations& observed, DriverSession* session) const {
    // A harness's stdout is its own business: only a driver's holds step lines.
    if (!setup_.official_harness) {
      observed.driver_report =
          parse_driver_output(read_file_or_empty(dir_ / "client.stdout"), steps_);
      // A driver that broke the protocol runs no further case.
      if (session && observed.driver_report.problem) session->retire();
    }
    observed.transcript = read_transcript(dir_ / "transcript.jsonl");
    // A stdio client that had not started its server when the start-up budget ran out did not
    // start: the runner sees that here, as the HTTP mock server sees it there.
    if (!http_server_ && observed.driver->kind == ChildOutcome::Kind::kTimedOut &&
        !observed.transcript.present && !fs::exists(dir_ / "mock.pid"))
      observed.transcript.startup_exceeded_ms =
          static_cast<double>(scaled_ms(timeouts_, "startup_ms").count());
    // Judged as the mock server's observations are.
    if (setup_.schemas) {
      const auto revision = observed.transcript.negotiated.value_or(setup_.revision);
      if (auto record = schema_check(observed.transcript, revision, *setup_.schemas))
        observed.transcript.checks.push_back(std::move(*record));
    }
  }

  const PlannedCase& planned_;
  const SuiteSetup& setup_;
  const fs::path dir_;
  const fs::path script_file_;
  const TimeoutTable timeouts_;
  const std::chrono::milliseconds grace_;
  const json steps_;
  std::optional<BackgroundProcess> http_server_;
};

}  // namespace

CaseResult run_case(const PlannedCase& planned, const SuiteSetup& setup, DriverSession* session) {
  const Scenario& scenario = *planned.scenario;
  CaseResult result = case_result_for(scenario, planned.transport);
  if (planned.unsupported) {
    result.verdict = Verdict::Unsupported;
    result.unsupported = planned.unsupported_kind;
    result.reason = *planned.unsupported;
    return result;
  }
  const auto started = std::chrono::steady_clock::now();
  const fs::path dir = evidence_dir_for(setup.report_dir, planned.transport, scenario.id);
  result.evidence_dir = dir;
  try {
    fs::remove_all(dir);
    fs::create_directories(dir);
    judge_case(result, scenario, CaseRun(planned, setup, dir).run(session), setup.refs);
  } catch (const std::exception& e) {
    // The suite's own trouble (a full disk, an unwritable folder) is never the client's fault.
    result.verdict = Verdict::Error;
    result.reason = std::string("the suite could not run the case: ") + e.what();
  }
  result.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  try {
    write_case_verdict(result);
  } catch (const std::exception& e) {
    result.verdict = Verdict::Error;
    result.reason = e.what();
  }
  return result;
}

}  // namespace mcpping
