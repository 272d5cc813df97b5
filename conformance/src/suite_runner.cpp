#include "conformance/suite_runner.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
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
#include "reports/number_text.hpp"

namespace mcpping {

namespace fs = std::filesystem;

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
  // Only a start-up and an exit: a slow or loaded machine gets the start-up budget for it.
  spec.deadline =
      scaled_ms(scaled_timeouts(setup.defaults, setup.timeout_multiplier), "startup_ms");
  ChildOutcome outcome = run_child(spec);
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

namespace {

std::string progress_line(std::size_t done, std::size_t total, const CaseResult& result) {
  const int width = static_cast<int>(std::to_string(total).size());
  char head[64];
  std::snprintf(head, sizeof head, "[%*zu/%zu] %-13s", width, done, total,
                std::string(to_string(result.verdict)).c_str());
  std::string line = std::string(head) + " " + result.transport + "  " + result.case_id;
  if (result.verdict == Verdict::Unsupported) return line;
  return line + "  (" + number_text::fixed(result.duration_ms / 1000.0, 2) + " s)";
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

// One run of the planned cases: the job slots, the pre-check beside the first cases, the
// progress lines, the results in plan order.
class SuiteRun {
 public:
  SuiteRun(const std::vector<PlannedCase>& cases, const SuiteSetup& setup,
           const SuiteOptions& options, std::ostream& out)
      : cases_(cases),
        setup_(setup),
        options_(options),
        out_(out),
        timeouts_(scaled_timeouts(setup.defaults, setup.timeout_multiplier)) {
    run_.cases.resize(cases.size());
  }

  RunResult run() {
    const auto started = std::chrono::steady_clock::now();
    CaseSchedule schedule = schedule_cases(cases_, timeouts_, options_.jobs);
    unsigned jobs = options_.jobs;
    bool prechecked = false;
    if (options_.adapt_jobs && schedule.busy.size() > 1) {
      jobs = choose_jobs(schedule);
      prechecked = options_.precheck;
    }
    // The pre-check runs beside the first cases rather than before them: a one-case run (each
    // ctest test is one) would otherwise start the driver twice in a row.
    if (options_.precheck && !prechecked && !cases_.empty()) start_precheck();
    // Sleeping cases beside everything, exclusive ones alone among the busy, then the busy
    // ones in the job slots (conformance/case_schedule.hpp).
    std::thread waiting;
    if (!schedule.waiting.empty()) {
      waiting = std::thread([&] { run_all(schedule.waiting, schedule.waiting_slots); });
    }
    run_all(schedule.exclusive, 1);
    run_all(schedule.busy, jobs);
    if (waiting.joinable()) waiting.join();
    if (precheck_.joinable()) precheck_.join();
    if (precheck_failure_) std::rethrow_exception(precheck_failure_);
    run_.findings = collect_findings(run_.cases);
    run_.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    return std::move(run_);
  }

 private:
  // Once the pre-check saw the driver offer sessions, the cases started from then on run in
  // one driver process per job slot (contract v1.3); those started before, in their own.
  void check_sessions() {
    if (setup_.driver_sessions &&
        offers_sessions(try_read_file_head(setup_.report_dir / "precheck" / "client.stdout", 4096)
                            .value_or("")))
      sessions_ = true;
  }

  void run_one(std::size_t i, std::optional<DriverSession>& session) {
    if (sessions_ && !session && !setup_.official_harness)
      session.emplace(setup_.driver_argv, setup_.report_dir);
    CaseResult result = run_case(cases_[i], setup_, session ? &*session : nullptr);
    const std::lock_guard lock(output_);
    if (stopped_) return;
    ++done_;
    out_ << progress_line(done_, cases_.size(), result) << "\n"
         << details_for(result) << std::flush;
    run_.cases[i] = std::move(result);
  }

  // The client's start-up, measured with nothing beside it, chooses how many run at once:
  // the pre-check's, or a harness's first case alone (then taken out of `schedule`).
  unsigned choose_jobs(CaseSchedule& schedule) {
    StartupCost cost;
    const double cpu_before = reaped_children_cpu_s();
    const double machine_before = machine_cpu_s();
    std::string what = "driver";
    std::optional<std::size_t> ran;
    if (options_.precheck) {
      const auto wall = precheck_driver(setup_, cases_.front().transport).wall;
      cost.wall_s = std::chrono::duration<double>(wall).count();
      check_sessions();
    } else {
      // A whole case, so more than its start-up: the choice errs on the side of fewer at once.
      ran = schedule.busy.front();
      const auto t0 = std::chrono::steady_clock::now();
      std::optional<DriverSession> alone;
      run_one(*ran, alone);
      cost.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      what = "harness (its first case alone)";
    }
    cost.cpu_s = reaped_children_cpu_s() - cpu_before;
    cost.others_cpu_s = std::max(0.0, machine_cpu_s() - machine_before - cost.cpu_s);
    const unsigned cores = std::thread::hardware_concurrency();
    const unsigned jobs = jobs_for(cost, cores, timeouts_.at("startup_ms") / 1000.0);
    run_.info.jobs_choice = describe_jobs_choice(cost, cores, jobs, what);
    {
      const std::lock_guard lock(output_);
      out_ << run_.info.jobs_choice << "\n" << std::flush;
    }
    schedule = schedule_cases(cases_, timeouts_, jobs);
    if (ran) {
      for (auto* group : {&schedule.exclusive, &schedule.waiting, &schedule.busy})
        group->erase(std::remove(group->begin(), group->end(), *ran), group->end());
    }
    return jobs;
  }

  // When the pre-check fails, no case starts any more, those running are stopped and say
  // nothing, and its error ends the run. Any error of its own (a report folder it cannot
  // create) ends the run too: rethrown by run(), never escaping the thread.
  void start_precheck() {
    precheck_ = std::thread([this] {
      try {
        precheck_driver(setup_, cases_.front().transport);
        check_sessions();
      } catch (...) {
        {
          const std::lock_guard lock(output_);
          precheck_failure_ = std::current_exception();
          stopped_ = true;
        }
        kill_all_children();
      }
    });
  }

  // The cases of `order`, in up to `slots` threads.
  void run_all(const std::vector<std::size_t>& order, std::size_t slots) {
    std::atomic<std::size_t> next{0};
    const auto worker = [&] {
      std::optional<DriverSession> session;  // this job slot's driver process, when sessions
      for (std::size_t k = next++; k < order.size() && !stopped_; k = next++)
        run_one(order[k], session);
    };
    slots = std::max<std::size_t>(1, std::min(slots, order.size()));
    std::vector<std::thread> threads;
    for (std::size_t j = 1; j < slots; ++j) threads.emplace_back(worker);
    worker();
    for (auto& thread : threads) thread.join();
  }

  const std::vector<PlannedCase>& cases_;
  const SuiteSetup& setup_;
  const SuiteOptions& options_;
  std::ostream& out_;
  const TimeoutTable timeouts_;
  RunResult run_;
  std::size_t done_ = 0;
  std::mutex output_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> sessions_{false};
  std::exception_ptr precheck_failure_;
  std::thread precheck_;
};

}  // namespace

RunResult run_suite(const std::vector<PlannedCase>& cases, const SuiteSetup& setup,
                    const SuiteOptions& options, std::ostream& out) {
  return SuiteRun(cases, setup, options, out).run();
}

}  // namespace mcpping
