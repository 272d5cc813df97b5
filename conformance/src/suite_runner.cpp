#include "conformance/suite_runner.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "conformance/case_schedule.hpp"
#include "conformance/child_process.hpp"
#include "conformance/driver_protocol.hpp"
#include "conformance/driver_session.hpp"
#include "conformance/job_budget.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "core/transport.hpp"
#include "reports/evidence.hpp"

namespace mcpping {

namespace fs = std::filesystem;

namespace {

std::string progress_line(std::size_t done, std::size_t total, const CaseResult& result) {
  const int width = static_cast<int>(std::to_string(total).size());
  char head[64];
  std::snprintf(head, sizeof head, "[%*zu/%zu] %-13s", width, done, total,
                std::string(to_string(result.verdict)).c_str());
  std::ostringstream line;
  line << head << " " << result.transport << "  " << result.case_id;
  if (result.verdict != Verdict::Unsupported) {
    char took[32];
    std::snprintf(took, sizeof took, "  (%.2f s)", result.duration_ms / 1000.0);
    line << took;
  }
  return line.str();
}

// What to print under a case's progress line.
std::string details_for(const CaseResult& result) {
  switch (result.verdict) {
    case Verdict::Pass:
      return "";
    case Verdict::Unsupported:
      return "  " + result.reason + "\n";
    case Verdict::Informational: {
      std::string text;
      for (const auto& check : result.checks) {
        if (check.verdict == Verdict::Informational) {
          text += "  info " + check.id + ": " + shorten(check.actual, 300) + "\n";
        }
      }
      return text;
    }
    default:
      return evidence_text(result);
  }
}

}  // namespace

ChildOutcome precheck_driver(const SuiteSetup& setup, const std::string& transport) {
  const fs::path dir = setup.report_dir / "precheck";
  fs::create_directories(dir);
  const nlohmann::json server = is_http_transport(transport)
                                    ? nlohmann::json{{"url", "http://127.0.0.1:9/mcp"}}
                                    : nlohmann::json{{"command", {"/bin/false"}}};
  const nlohmann::json steps = nlohmann::json::array({{{"op", std::string(kUnsupportedOp)}}});
  const auto invocation =
      make_invocation(setup.driver_argv, "__precheck__", transport, setup.revision, server, steps);
  SpawnSpec spec;
  spec.argv = invocation.argv;
  spec.extra_env = invocation.env;
  // A driver that can run cases in sessions says so first on stdout (contract v1.3).
  if (setup.driver_sessions) spec.extra_env[kSessionVariable] = "1";
  spec.stdout_file = dir / "client.stdout";
  spec.stderr_file = dir / "client.stderr";
  spec.deadline = std::chrono::milliseconds(
      static_cast<std::int64_t>(std::ceil(10000 * setup.timeout_multiplier)));
  const ChildOutcome outcome = run_child(spec);
  if (outcome.kind == ChildOutcome::Kind::kExited && outcome.exit_code == kDriverUnsupportedExit) {
    return outcome;
  }
  std::string message =
      "the driver failed the pre-check: given the op \"__unsupported__\" it must "
      "exit 127 (docs/driver-contract.md), but it ";
  message += outcome.kind == ChildOutcome::Kind::kSpawnFailed ? describe(outcome)
                                                              : "ended with " + describe(outcome);
  const std::string out = try_read_file_head(spec.stdout_file, 600).value_or("");
  const std::string err = try_read_file_head(spec.stderr_file, 600).value_or("");
  if (!out.empty()) message += "\n  its stdout: " + out;
  if (!err.empty()) message += "\n  its stderr: " + err;
  throw SuiteError(message);
}

RunResult run_suite(const std::vector<PlannedCase>& cases, const SuiteSetup& setup,
                    const SuiteOptions& options, std::ostream& out) {
  RunResult run;
  run.cases.resize(cases.size());
  const auto started = std::chrono::steady_clock::now();
  std::size_t done = 0;
  std::mutex output;
  // The pre-check runs beside the first cases rather than before them: a one-case run (each
  // ctest test is one) would otherwise start the driver twice in a row. When it fails, no
  // case starts any more, those running are stopped and say nothing, and its error ends the
  // run.
  std::atomic<bool> stopped{false};
  // Any error of the pre-check's own (a report folder it cannot create) ends the run as it did
  // before the pre-check had a thread: rethrown here, never escaping the thread.
  std::exception_ptr precheck_failure;
  std::thread precheck;
  // Set once the pre-check saw the driver offer sessions: the cases started from then on run
  // in one driver process per job slot (contract v1.3); those started before, in their own.
  std::atomic<bool> sessions{false};
  const auto check_sessions = [&] {
    if (setup.driver_sessions &&
        offers_sessions(
            try_read_file_head(setup.report_dir / "precheck" / "client.stdout", 4096).value_or("")))
      sessions = true;
  };
  const auto run_one = [&](std::size_t i, std::optional<DriverSession>& session) {
    if (sessions && !session && !setup.official_harness)
      session.emplace(setup.driver_argv, setup.report_dir);
    CaseResult result = run_case(cases[i], setup, session ? &*session : nullptr);
    const std::lock_guard lock(output);
    if (stopped) return;
    ++done;
    out << progress_line(done, cases.size(), result) << "\n" << details_for(result) << std::flush;
    run.cases[i] = std::move(result);
  };
  const auto timeouts = scaled_timeouts(setup.defaults, setup.timeout_multiplier);
  CaseSchedule schedule = schedule_cases(cases, timeouts, options.jobs);
  unsigned jobs = options.jobs;
  bool prechecked = false;
  if (options.adapt_jobs && schedule.busy.size() > 1) {
    // The client's start-up, measured with nothing beside it, chooses how many run at once.
    StartupCost cost;
    const double cpu_before = reaped_children_cpu_s();
    std::string what = "driver";
    std::optional<std::size_t> ran;
    if (options.precheck) {
      const auto wall = precheck_driver(setup, cases.front().transport).wall;
      cost.wall_s = std::chrono::duration<double>(wall).count();
      prechecked = true;
      check_sessions();
    } else {
      // A harness has no pre-check: its first case, alone, measures it (a whole case, so
      // more than its start-up: the choice errs on the side of fewer at once).
      ran = schedule.busy.front();
      const auto t0 = std::chrono::steady_clock::now();
      std::optional<DriverSession> alone;
      run_one(*ran, alone);
      cost.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      what = "harness (its first case alone)";
    }
    cost.cpu_s = reaped_children_cpu_s() - cpu_before;
    jobs = jobs_for(cost, std::thread::hardware_concurrency(), timeouts.at("startup_ms") / 1000.0);
    run.info.jobs_choice = describe_jobs_choice(cost, jobs, what);
    {
      const std::lock_guard lock(output);
      out << run.info.jobs_choice << "\n" << std::flush;
    }
    schedule = schedule_cases(cases, timeouts, jobs);
    if (ran) {
      for (auto* group : {&schedule.exclusive, &schedule.waiting, &schedule.busy})
        group->erase(std::remove(group->begin(), group->end(), *ran), group->end());
    }
  }
  if (options.precheck && !prechecked && !cases.empty()) {
    precheck = std::thread([&] {
      try {
        precheck_driver(setup, cases.front().transport);
        check_sessions();
      } catch (...) {
        {
          const std::lock_guard lock(output);
          precheck_failure = std::current_exception();
          stopped = true;
        }
        kill_all_children();
      }
    });
  }
  // Sleeping cases beside everything, exclusive ones alone among the busy, then the busy ones
  // in the job slots (conformance/case_schedule.hpp).
  const auto run_all = [&](const std::vector<std::size_t>& order, std::size_t slots) {
    std::atomic<std::size_t> next{0};
    const auto worker = [&] {
      std::optional<DriverSession> session;  // this job slot's driver process, when sessions
      for (std::size_t k = next++; k < order.size() && !stopped; k = next++)
        run_one(order[k], session);
    };
    slots = std::max<std::size_t>(1, std::min(slots, order.size()));
    std::vector<std::thread> threads;
    for (std::size_t j = 1; j < slots; ++j) threads.emplace_back(worker);
    worker();
    for (auto& thread : threads) thread.join();
  };
  std::thread waiting;
  if (!schedule.waiting.empty()) {
    waiting = std::thread([&] { run_all(schedule.waiting, schedule.waiting_slots); });
  }
  run_all(schedule.exclusive, 1);
  run_all(schedule.busy, jobs);
  if (waiting.joinable()) waiting.join();
  if (precheck.joinable()) precheck.join();
  if (precheck_failure) std::rethrow_exception(precheck_failure);
  run.findings = collect_findings(run.cases);
  run.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return run;
}

}  // namespace mcpping
