#include "conformance/case_runner.hpp"

#include <functional>
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

namespace {

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

std::vector<std::string> mock_server_argv(const fs::path& server, const fs::path& script_file,
                                          const fs::path& dir) {
  return {server.string(), "--script", script_file.string(), "--evidence-dir", dir.string()};
}

// The driver's run of the case: by a process of its own, or as the next case of `session`.
class DriverClient final : public CaseClient {
 public:
  explicit DriverClient(DriverSession* session) : session_(session) {}

  Json script(const CaseContext& c, Json resolved) const override {
    return c.setup.official_harness ? official_harness_script(std::move(resolved)) : resolved;
  }

  ClientEnd play(const CaseContext& c, const Json& server) override {
    const auto& id = c.planned.scenario->id;
    const DriverInvocation invocation =
        c.setup.official_harness
            ? official_harness_invocation(c.setup.driver_argv, id, c.planned.transport,
                                          c.setup.revision, server.value("url", ""))
            : make_invocation(c.setup.driver_argv, id, c.planned.transport, c.setup.revision,
                              server, c.steps);
    write_reproduce_script(c, invocation, server.value("url", ""));
    const SpawnSpec spec = driver_spec(c, invocation);
    return {session_ ? session_->run_case(invocation, spec) : run_child(spec)};
  }

  // The driver's step lines; a harness's stdout is its own business.
  void observe(const CaseContext& c, CaseObservations& observed) override {
    observed.official_harness = c.setup.official_harness;
    if (c.setup.official_harness) return;
    observed.driver_report =
        parse_driver_output(read_file_or_empty(c.dir / "client.stdout"), c.steps);
    // A driver that broke the protocol runs no further case.
    if (session_ && observed.driver_report.problem) session_->retire();
  }

 private:
  static void write_reproduce_script(const CaseContext& c, const DriverInvocation& invocation,
                                     const std::string& url) {
    const fs::path file = c.dir / "reproduce.sh";
    write_file(file,
               reproduce_script(invocation, url, c.setup.mock_http_server, c.dir / "script.json"));
    fs::permissions(file, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  }

  // The mock server ends the script at the case deadline, which runs from the client's first
  // contact; the driver gets a little more to finish its close step before it counts as hung.
  // A client that started late has its deadline moved on while the mock server still runs,
  // and once more after it ended, up to the latest the script can end.
  static SpawnSpec driver_spec(const CaseContext& c, const DriverInvocation& invocation) {
    SpawnSpec spec;
    spec.argv = invocation.argv;
    spec.extra_env = invocation.env;
    spec.stdout_file = c.dir / "client.stdout";
    spec.stderr_file = c.dir / "client.stderr";
    const auto deadline = scaled_ms(c.timeouts, "case_deadline_ms");
    spec.deadline = deadline + c.grace;
    spec.kill_grace = c.grace;
    spec.output_drain = c.grace;
    const auto startup = scaled_ms(c.timeouts, "startup_ms");
    spec.deadline_limit = startup + deadline + kMockWatchdog + c.grace * 2;
    spec.extend_while = deadline_extension(c.dir / "mock.pid", startup);
    return spec;
  }

  DriverSession* session_;
};

// The stages of a case between its evidence folder and its judging.
class CasePipeline {
 public:
  CasePipeline(const CaseContext& c, CaseClient& client) : c_(c), client_(client) {}

  CaseObservations play() {
    // A fresh evidence folder holding the script the mock server runs.
    fs::remove_all(c_.dir);
    fs::create_directories(c_.dir);
    const RunSettings settings{c_.planned.transport, c_.setup.revision,
                               c_.setup.timeout_multiplier};
    const Json resolved = resolve_script(*c_.planned.scenario, c_.setup.defaults, settings);
    write_file(c_.dir / "script.json", client_.script(c_, resolved).dump(2) + "\n");
    const Json server = start_mock_server();
    CaseObservations observed;
    observed.transport = c_.planned.transport;
    observed.revision = c_.setup.revision;
    const ClientEnd end = client_.play(c_, server);
    observed.driver = end.driver;
    stop_mock_server_after_client(end.stop);
    read_evidence(observed);
    return observed;
  }

 private:
  // stdio: the client spawns the mock server. HTTP: the runner starts it and hands the
  // client its URL.
  Json start_mock_server() {
    const fs::path script_file = c_.dir / "script.json";
    if (!is_http_transport(c_.planned.transport)) {
      return {{"command", mock_server_argv(c_.setup.mock_stdio_server, script_file, c_.dir)}};
    }
    const fs::path stderr_file = c_.dir / "mock.stderr";
    http_server_.emplace(mock_server_argv(c_.setup.mock_http_server, script_file, c_.dir),
                         stderr_file);
    // Its first stdout line is {"url":"http://..."}.
    const auto line = http_server_->next_line(c_.grace * 2);
    json parsed = line ? json::parse(*line, nullptr, false) : json();
    if (parsed.is_object() && parsed.contains("url") && parsed["url"].is_string()) return parsed;
    const std::string why =
        line ? "printed " + *line
             : "printed no URL within " + std::to_string((c_.grace * 2).count()) + " ms";
    throw std::runtime_error("the HTTP mock server did not start: it " + why + "; " +
                             http_server_->stop(std::chrono::milliseconds(500)) +
                             "; stderr: " + read_file_or_empty(stderr_file).substr(0, 400));
  }

  void stop_mock_server_after_client(MockStop how) {
    if (http_server_) {
      http_server_->stop(c_.grace);
    } else {
      // It normally exits with the client; one the client left running (in another process
      // group, ignoring end of file) is stopped, so no case leaves a process behind.
      stop_mock_server(c_.dir / "mock.pid", c_.grace, how);
    }
  }

  // The transcript, the runner's own observation of it, and what the client reported.
  void read_evidence(CaseObservations& observed) {
    observed.transcript = read_transcript(c_.dir / "transcript.jsonl");
    // A stdio client that had not started its server when the start-up budget ran out did not
    // start: the runner sees that here, as the HTTP mock server sees it there.
    if (!http_server_ && observed.driver &&
        observed.driver->kind == ChildOutcome::Kind::kTimedOut && !observed.transcript.present &&
        !fs::exists(c_.dir / "mock.pid"))
      observed.transcript.startup_exceeded_ms =
          static_cast<double>(scaled_ms(c_.timeouts, "startup_ms").count());
    // Judged as the mock server's observations are.
    if (c_.setup.schemas) {
      const auto revision = observed.transcript.negotiated.value_or(c_.setup.revision);
      if (auto record = schema_check(observed.transcript, revision, *c_.setup.schemas))
        observed.transcript.checks.push_back(std::move(*record));
    }
    client_.observe(c_, observed);
  }

  const CaseContext& c_;
  CaseClient& client_;
  std::optional<BackgroundProcess> http_server_;
};

// The verdict and checks of what was observed, and a transcript excerpt when it did not pass.
void judge(CaseResult& result, const Scenario& scenario, const CaseObservations& observed,
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

void write_verdict(const CaseResult& result, const CaseClient& client) {
  Json verdict = to_json(result);
  client.annotate(verdict);
  // Broken UTF-8 a client may have sent is replaced rather than thrown on.
  write_file(result.evidence_dir / "verdict.json",
             verdict.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

}  // namespace

CaseResult run_case(const PlannedCase& planned, const SuiteSetup& setup, CaseClient& client) {
  const Scenario& scenario = *planned.scenario;
  CaseResult result;
  result.case_id = scenario.id;
  result.transport = planned.transport;
  result.title = scenario.title;
  result.description = scenario.description;
  result.catches = scenario.catches;
  if (planned.unsupported) {
    result.verdict = Verdict::Unsupported;
    result.unsupported = planned.unsupported_kind;
    result.reason = *planned.unsupported;
    return result;
  }
  const auto started = std::chrono::steady_clock::now();
  result.evidence_dir = setup.report_dir / "cases" / planned.transport / scenario.id;
  try {
    const TimeoutTable timeouts = scaled_timeouts(setup.defaults, setup.timeout_multiplier);
    const CaseContext c{planned,
                        setup,
                        result.evidence_dir,
                        timeouts,
                        driver_grace(setup.timeout_multiplier),
                        resolve_driver_steps(scenario, timeouts)};
    judge(result, scenario, CasePipeline(c, client).play(), setup.refs);
  } catch (const std::exception& e) {
    // The suite's own trouble (a full disk, an unwritable folder) is never the client's fault.
    result.verdict = Verdict::Error;
    result.reason = std::string("the suite could not run the case: ") + e.what();
  }
  result.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  try {
    write_verdict(result, client);
  } catch (const std::exception& e) {
    result.verdict = Verdict::Error;
    result.reason = e.what();
  }
  return result;
}

CaseResult run_case(const PlannedCase& planned, const SuiteSetup& setup, DriverSession* session) {
  DriverClient client(session);
  return run_case(planned, setup, client);
}

}  // namespace mcpping
