// mcp-ping-conformance: runs the scenario catalogue against an MCP client's driver.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <iomanip>
#include <iostream>
#include <set>
#include <thread>

#include "conformance/case_plan.hpp"
#include "conformance/case_runner.hpp"
#include "conformance/catalogue_doc.hpp"
#include "conformance/catalogue_json.hpp"
#include "conformance/child_process.hpp"
#include "conformance/cli.hpp"
#include "conformance/job_budget.hpp"
#include "conformance/mock_watch.hpp"
#include "conformance/official_harness.hpp"
#include "conformance/schema_validation.hpp"
#include "conformance/serve_session.hpp"
#include "conformance/suite_runner.hpp"
#include "core/files.hpp"
#include "core/scenario.hpp"
#include "core/text.hpp"
#include "core/transport.hpp"
#include "engine/script.hpp"
#include "reports/baseline.hpp"
#include "reports/comparison.hpp"
#include "reports/evidence.hpp"
#include "reports/html.hpp"
#include "reports/json_report.hpp"
#include "reports/junit.hpp"
#include "reports/markdown.hpp"
#include "reports/merge.hpp"

namespace {

using namespace mcpping;
namespace fs = std::filesystem;

// Exit statuses beside run_status()'s 0 and 1 (docs/ci.md, "Exit status"): 2, the run could
// not start as asked (the command line, a baseline, a fixture, merge input, a driver that
// fails the pre-check); 3, the suite failed (exit_code(RunStatus::kError), or anything
// unforeseen).
constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitSuiteFailure = 3;

struct Catalogue {
  Defaults defaults;
  SpecReferences refs;
  std::vector<Scenario> scenarios;
};

// The directory holding this executable (from /proc/self/exe).
fs::path executable_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot read /proc/self/exe: " + ec.message());
  return self.parent_path();
}

// The fixtures folder: --fixtures if given, else $MCP_PING_CONFORMANCE_FIXTURES, else
// <exe>/../share/mcp-ping-conformance/fixtures (installed), else the source tree's fixtures/
// (build tree). Throws std::runtime_error naming every place it looked.
fs::path find_fixtures_dir(const std::optional<fs::path>& given) {
  std::vector<fs::path> candidates;
  if (given) {
    candidates.push_back(*given);
  } else {
    if (const char* env = std::getenv("MCP_PING_CONFORMANCE_FIXTURES"); env && *env) {
      candidates.emplace_back(env);
    }
    candidates.push_back(executable_dir() / ".." / "share" / "mcp-ping-conformance" / "fixtures");
    candidates.emplace_back(MCP_PING_SOURCE_FIXTURES_DIR);
  }
  std::string looked;
  for (const auto& dir : candidates) {
    if (fs::is_regular_file(dir / "defaults.json") && fs::is_directory(dir / "scenarios")) {
      return fs::weakly_canonical(dir);
    }
    looked += "\n  " + dir.string();
  }
  throw std::runtime_error("no fixtures folder (defaults.json and scenarios/) found; looked in:" +
                           looked);
}

// A mock server executable next to this one (build/bin or <prefix>/bin).
fs::path find_sibling_executable(const std::string& name) {
  fs::path path = executable_dir() / name;
  if (::access(path.c_str(), X_OK) != 0) {
    throw std::runtime_error("the suite is incomplete: " + path.string() + " is missing");
  }
  return path;
}

Catalogue load(const std::optional<fs::path>& fixtures, const ScenarioFilter& wanted = {}) {
  const fs::path dir = find_fixtures_dir(fixtures);
  Catalogue catalogue;
  catalogue.defaults = load_defaults(dir / "defaults.json");
  catalogue.refs = load_spec_references(dir / "spec-references.json");
  catalogue.scenarios = load_catalogue(dir / "scenarios", catalogue.defaults, catalogue.refs,
                                       validate_script, wanted);
  return catalogue;
}

// Ctrl-C or a TERM from CI: drivers sit in their own process groups, so take them down
// before leaving.
void start_interrupt_watcher() {
  const sigset_t signals = block_shutdown_signals();
  std::thread([signals] {
    int received = 0;
    sigwait(&signals, &received);
    kill_all_children();
    std::cerr << "\nmcp-ping-conformance: interrupted; every driver was stopped\n";
    _exit(128 + received);
  }).detach();
}

// CTest reads <DartMeasurement> tags in a test's output and sends them to CDash. Run per
// case by mcp_ping_conformance_add_tests(), this gives each test its latency figures: those
// of single pongs, and of the burst when the case has one (the largest, should it have more).
void print_ctest_measurements(const RunResult& result, std::ostream& out) {
  std::vector<std::pair<const char*, double>> measurements;
  if (const auto single = single_pong_figures(result); single.count > 0) {
    measurements = {{"ping_latency_ms_p50", single.p50},
                    {"ping_latency_ms_p95", single.p95},
                    {"ping_latency_ms_max", single.max}};
  }
  const auto bursts = bursts_of(result);
  const auto largest = std::max_element(
      bursts.begin(), bursts.end(),
      [](const auto& a, const auto& b) { return a.check->burst->pings < b.check->burst->pings; });
  if (largest != bursts.end()) {
    measurements.emplace_back("burst_time_to_last_pong_ms",
                              largest->check->burst->time_to_last_pong_ms);
    measurements.emplace_back("burst_pongs_per_second", largest->check->burst->pongs_per_second);
  }
  for (const auto& [name, value] : measurements) {
    out << "<DartMeasurement type=\"numeric/double\" name=\"" << name << "\">" << value
        << "</DartMeasurement>\n";
  }
}

// 127 is the contract's "unsupported", and also what a shell returns for a command it cannot
// find: a driver whose interpreter is missing would pass the pre-check and make every case
// UNSUPPORTED. Say so rather than let a green run hide it.
void warn_if_driver_never_ran(const RunResult& result) {
  const bool all_127 =
      !result.cases.empty() &&
      std::all_of(result.cases.begin(), result.cases.end(), [](const CaseResult& c) {
        return c.unsupported == CaseResult::Unsupported::kDriver;
      });
  if (all_127) {
    std::cerr << "mcp-ping-conformance: warning: the driver exited 127 in every case. 127 is also "
                 "a shell's \"command not found\": check that the driver and its interpreter "
                 "run (see its client.stderr).\n";
  }
}

// After the progress lines: what the baseline changed.
void print_baseline_outcome(const RunResult& result, std::ostream& out) {
  for (const auto& c : result.cases) {
    if (c.expectation == CaseResult::Expectation::kStale) {
      out << "stale baseline entry: " << c.case_id << " (" << c.transport
          << ") passed; remove it from " << result.baseline_file << "\n";
    } else if (c.expectation == CaseResult::Expectation::kExpectedFailure) {
      out << "expected failure: " << c.case_id << " (" << c.transport
          << "): " << c.expectation_reason << "\n";
    }
  }
  for (const auto& entry : result.unknown_baseline_entries) {
    out << "baseline entry names no case or check of this suite: " << entry << "\n";
  }
}

int list(const ListOptions& options) {
  const Catalogue catalogue = load(options.fixtures);
  if (options.harness) {
    std::cout << official_harness_listing(catalogue.scenarios, options.markdown);
    return kExitOk;
  }
  if (options.json) {
    const CatalogueSelection selection{options.scenario_globs, options.transport};
    std::cout << catalogue_json(catalogue.scenarios, selection, &catalogue.refs).dump(2) << "\n";
    return kExitOk;
  }
  std::vector<Scenario> selected;
  for (const Scenario* scenario :
       select_scenarios(catalogue.scenarios, {options.scenario_globs, std::nullopt})) {
    selected.push_back(*scenario);
  }
  if (options.markdown) {
    std::cout << catalogue_markdown(selected, catalogue.refs);
    return kExitOk;
  }
  for (const auto& scenario : selected) {
    for (const auto& transport : scenario.transports) {
      if (options.transport && *options.transport != transport) continue;
      std::cout << std::left << std::setw(44) << scenario.id << " " << std::setw(16) << transport
                << " " << scenario.title << "\n";
    }
  }
  return kExitOk;
}

KnownIds known_ids(const std::vector<Scenario>& scenarios) {
  KnownIds ids;
  for (const auto& scenario : scenarios) {
    ids.cases.insert(scenario.id);
    for (const auto& check : scenario.script_checks)
      ids.checks.insert(scenario.id + ":" + check.id);
    for (const auto& check : scenario.driver_checks) {
      ids.checks.insert(scenario.id + ":" + check.check.id);
    }
  }
  return ids;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

int print_table(const TableOptions& options) {
  std::vector<ReportColumn> columns;
  std::vector<LabelledRun> runs;
  for (const auto& [label, dir] : options.columns) {
    columns.push_back({{label, read_results_json(dir / "results.json")}, dir});
    runs.push_back(columns.back().labelled);
  }
  std::cout << render_comparison_markdown(runs);
  if (!options.html.empty()) {
    const fs::path page_dir = fs::absolute(options.html).parent_path();
    write_file(options.html,
               render_comparison_html(columns, page_dir, utc_now(), MCP_PING_VERSION));
  }
  return kExitOk;
}

// The column heading of a single run's HTML report: the driver's file name.
std::string driver_label(const std::vector<std::string>& driver_argv) {
  const std::string name =
      driver_argv.empty() ? "" : fs::path(driver_argv.front()).filename().string();
  return name.empty() ? "client" : name;
}

std::string summary_of_clients(const std::vector<LabelledRun>& clients) {
  if (clients.size() == 1) return render_summary_markdown(clients.front().run);
  std::string markdown = "# mcp-ping-conformance: " + std::to_string(clients.size()) +
                         " clients\n\n" + render_comparison_markdown(clients);
  for (const auto& [label, run] : clients) {
    markdown += "\n# " + label + "\n\n" + render_summary_markdown(run);
  }
  return markdown;
}

// clients/<folder>/results.json for each client; returns the files.
std::vector<fs::path> write_client_results(const std::vector<LabelledRun>& clients,
                                           const fs::path& output) {
  std::set<std::string> folders;
  for (const auto& client : clients) {
    if (!folders.insert(client_folder(client.label)).second) {
      throw MergeError("two labels share the folder clients/" + client_folder(client.label));
    }
  }
  std::vector<fs::path> files;
  for (const auto& [label, run] : clients) {
    files.push_back(output / "clients" / client_folder(label) / "results.json");
    fs::create_directories(files.back().parent_path());
    write_results_json(run, files.back());
  }
  return files;
}

int merge(const MergeOptions& options) {
  std::vector<LabelledRun> shards;
  for (const auto& [label, dir] : options.columns) {
    shards.push_back({label, read_results_json(dir / "results.json")});
  }
  const std::vector<LabelledRun> clients = merge_shards(shards);
  const RunResult combined = combined_run(clients);  // may refuse: before anything is written
  const std::vector<fs::path> results = write_client_results(clients, options.output);
  write_junit(combined, options.output / "junit.xml");
  write_file(options.output / "summary.md", summary_of_clients(clients));
  write_html_report(clients, options.output / "html");
  for (const auto& [label, run] : clients) {
    for (const auto& line : latency_lines(run)) std::cout << label << ": " << line << "\n";
    std::cout << label << ": " << closing_line(run) << "\n";
  }
  std::cout << "reports: " << (options.output / "junit.xml").string() << ", "
            << (options.output / "summary.md").string() << ", "
            << (options.output / "html" / "index.html").string();
  for (const auto& file : results) std::cout << ", " << file.string();
  std::cout << "\n";
  RunStatus worst = RunStatus::kOk;  // of the clients' runs
  for (const auto& client : clients) worst = std::max(worst, run_status(client.run));
  return exit_code(worst);
}

int write_baseline(const BaselineOptions& options) {
  const std::string yaml = baseline_from_run(read_results_json(options.from / "results.json"));
  if (!options.output) {
    std::cout << yaml;
    return kExitOk;
  }
  write_file(*options.output, yaml);
  std::cerr << "wrote " << options.output->string() << "\n";
  return kExitOk;
}

SuiteSetup driver_setup(const RunOptions& options) {
  SuiteSetup setup;
  setup.driver_argv = options.driver_argv;
  setup.official_harness = options.harness.has_value();
  setup.driver_sessions = !setup.official_harness && options.driver_sessions;
  setup.revision = options.revision;
  setup.timeout_multiplier = options.timeout_multiplier;
  fs::create_directories(options.report_dir);
  setup.report_dir = fs::canonical(options.report_dir);
  return setup;
}

// --precheck-only: the ctest module runs it once, as the fixture every case test requires.
int precheck_only(const RunOptions& options) {
  start_interrupt_watcher();
  const std::string transport =
      options.transport.value_or(std::string(to_string(Transport::Stdio)));
  SuiteSetup setup = driver_setup(options);
  setup.defaults = load_defaults(find_fixtures_dir(options.fixtures) / "defaults.json");
  precheck_driver(setup, transport);
  std::cout << "the driver passed the pre-check: given the op \"__unsupported__\" on " << transport
            << ", it exited 127\n";
  return kExitOk;
}

// The catalogue `run` needs: only the fixtures the globs name; a baseline is checked against
// every case and check id, so it needs them all.
Catalogue load_for_run(const RunOptions& options) {
  const auto& globs = options.scenario_globs;
  if (globs.empty() || options.baseline) return load(options.fixtures);
  Catalogue catalogue =
      load(options.fixtures, [&](const std::string& id) { return matches_any(globs, id); });
  try {
    select_scenarios(catalogue.scenarios, {globs, std::nullopt});  // throws for a glob naming none
    return catalogue;
  } catch (const std::invalid_argument&) {
    return load(options.fixtures);  // a typo: its close matches come from the whole catalogue
  }
}

// The cases to run (of this shard): none when the shard has none. `harness_cases` holds the
// cases as an official harness runs them.
std::vector<PlannedCase> plan_run(const RunOptions& options, const Catalogue& catalogue,
                                  std::deque<Scenario>& harness_cases) {
  // Every known transport has a mock server in this build (the CLI refuses others).
  PlanRequest request{options.scenario_globs, options.transport, options.revision,
                      known_transports()};
  std::vector<PlannedCase> cases;
  try {
    cases = plan_cases(catalogue.scenarios, request);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (cases.empty()) throw UsageError("no case matches the given --scenario and --transport");
  if (options.harness) plan_official_harness(cases, harness_cases);
  if (options.shard) cases = shard_of(cases, options.shard->first, options.shard->second);
  return cases;
}

SuiteSetup run_setup(const RunOptions& options, const Catalogue& catalogue,
                     const std::vector<PlannedCase>& cases) {
  SuiteSetup setup = driver_setup(options);
  // Read (and their envelopes compiled) before any case: a broken folder stops the run here.
  if (options.schemas) {
    setup.schemas =
        std::make_shared<const SchemaSet>(fs::absolute(*options.schemas).lexically_normal());
  }
  setup.defaults = catalogue.defaults;
  setup.refs = catalogue.refs;
  setup.mock_stdio_server = find_sibling_executable("mcp-mock-stdio-server");
  if (std::any_of(cases.begin(), cases.end(),
                  [](const PlannedCase& c) { return is_http_transport(c.transport); })) {
    setup.mock_http_server = find_sibling_executable("mcp-mock-http-server");
  }
  return setup;
}

SuiteOptions suite_options(const RunOptions& options) {
  SuiteOptions suite;
  // A harness knows no "__unsupported__" op: there is nothing to pre-check.
  suite.precheck = !options.harness && options.precheck == RunOptions::Precheck::kBeside;
  // A case keeps a core busy for about a third of its run (it waits on its client and its
  // timers): four per core keep two cores busy (docs/design-decisions.md, "Parallelism").
  // Without --jobs, the client's measured start-up lowers that where it is costly
  // (conformance/job_budget.hpp).
  suite.jobs = options.jobs ? options.jobs : default_jobs(std::thread::hardware_concurrency());
  suite.adapt_jobs = options.jobs == 0;
  return suite;
}

// The run's first lines: what runs, how, and whether messages are validated.
void announce_run(const RunOptions& options, const SuiteOptions& suite, const SuiteSetup& setup,
                  std::size_t cases) {
  std::cout << "mcp-ping-conformance " << MCP_PING_VERSION << ": " << cases << " cases, revision "
            << options.revision << ", " << (options.strict ? "strict" : "lenient")
            << ", timeout multiplier " << options.timeout_multiplier << ", "
            << (suite.adapt_jobs ? "up to " : "") << suite.jobs << " at once\n";
  RunInfo announced;
  if (setup.schemas) announced.schemas = setup.schemas->dir().string();
  std::cout << schema_validation_line(announced)
            << (setup.schemas ? " (revisions " + join(setup.schemas->revisions(), ", ") + ")" : "")
            << "\n"
            << std::flush;
}

void record_run_info(const RunOptions& options, const SuiteSetup& setup, RunResult& result) {
  result.info.suite_version = MCP_PING_VERSION;
  result.info.revision = options.revision;
  result.info.strict = options.strict;
  result.info.timeout_multiplier = options.timeout_multiplier;
  result.info.driver_argv = options.driver_argv;
  if (setup.schemas) result.info.schemas = setup.schemas->dir().string();
  result.info.pong_cap_ms =
      scaled_timeouts(setup.defaults, options.timeout_multiplier).at("pong_cap_ms");
}

// The reports in the report folder, and the run's closing lines.
void write_run_reports(const RunOptions& options, const fs::path& report_dir,
                       const RunResult& result) {
  const fs::path junit = options.junit.value_or(report_dir / "junit.xml");
  write_junit(result, junit);
  write_results_json(result, report_dir / "results.json");
  write_file(report_dir / "summary.md", render_summary_markdown(result));
  write_html_report({{driver_label(options.driver_argv), result}}, report_dir / "html");
  // A finding is named once, on its own line below, with its case count.
  for (const auto& cause : root_causes(result)) {
    if (!cause.finding) std::cout << "root cause: " << root_cause_line(cause) << "\n";
  }
  for (const auto& finding : result.findings)
    std::cout << "finding: " << finding_line(finding) << "\n";
  for (const auto& line : latency_lines(result)) std::cout << line << "\n";
  std::cout << closing_line(result) << "\n"
            << "reports: " << junit.string() << ", " << (report_dir / "results.json").string()
            << ", " << (report_dir / "summary.md").string() << ", "
            << (report_dir / "html" / "index.html").string() << "; evidence in "
            << (report_dir / "cases").string() << "\n";
}

int run(const RunOptions& options) {
  if (options.precheck == RunOptions::Precheck::kOnly) return precheck_only(options);
  const Catalogue catalogue = load_for_run(options);
  // A broken baseline stops the run before any case: nothing is lost to a typo.
  std::optional<Baseline> baseline;
  if (options.baseline) baseline = load_baseline(*options.baseline);
  std::deque<Scenario> harness_cases;  // the cases as an official harness runs them
  const std::vector<PlannedCase> cases = plan_run(options, catalogue, harness_cases);
  if (cases.empty()) {
    std::cout << "shard " << options.shard->first << "/" << options.shard->second
              << " has no case\n";
    return kExitOk;
  }
  const SuiteSetup setup = run_setup(options, catalogue, cases);
  start_interrupt_watcher();
  const SuiteOptions suite = suite_options(options);
  announce_run(options, suite, setup, cases.size());
  const std::string started_at = utc_now();
  RunResult result = run_suite(cases, setup, suite, std::cout);
  result.started_at = started_at;
  record_run_info(options, setup, result);
  if (baseline) {
    apply_baseline(*baseline, known_ids(catalogue.scenarios), result);
    print_baseline_outcome(result, std::cout);
  }
  write_run_reports(options, setup.report_dir, result);
  if (options.ctest_measurements) print_ctest_measurements(result, std::cout);
  if (!options.harness) warn_if_driver_never_ran(result);

  const VerdictCounts counts = count_verdicts(result.cases);
  if (const auto status = run_status(result); status != RunStatus::kOk) return exit_code(status);
  if (options.unsupported_exit_code && counts.unsupported == counts.total) {
    return *options.unsupported_exit_code;
  }
  return kExitOk;
}

int serve(const ServeOptions& options) {
  Catalogue catalogue = load(options.fixtures);
  SuiteSetup setup;
  setup.defaults = std::move(catalogue.defaults);
  setup.refs = std::move(catalogue.refs);
  if (!is_http_transport(options.transport)) {
    setup.mock_stdio_server = find_sibling_executable("mcp-mock-stdio-server");
  } else {
    setup.mock_http_server = find_sibling_executable("mcp-mock-http-server");
  }
  return mcpping::serve(options, catalogue.scenarios, std::move(setup), std::cout);
}

// The run could not start as asked: a value given that the suite cannot use, a report to
// read or merge that is not one, a --schemas folder without usable schemas, a driver that
// fails the pre-check. The input must change, not the suite.
bool is_invocation_error(const std::exception& e) {
  return dynamic_cast<const std::invalid_argument*>(&e) != nullptr ||
         dynamic_cast<const ResultsFileError*>(&e) != nullptr ||
         dynamic_cast<const MergeError*>(&e) != nullptr ||
         dynamic_cast<const SchemaError*>(&e) != nullptr ||
         dynamic_cast<const SuiteError*>(&e) != nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Command command = parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
    switch (command.kind) {
      case Command::Kind::kHelp:
        std::cout << usage_text();
        return kExitOk;
      case Command::Kind::kVersion:
        std::cout << "mcp-ping-conformance " << MCP_PING_VERSION << "\n";
        return kExitOk;
      case Command::Kind::kList:
        return list(command.list);
      case Command::Kind::kRun:
        return run(command.run);
      case Command::Kind::kBaseline:
        return write_baseline(command.baseline);
      case Command::Kind::kTable:
        return print_table(command.table);
      case Command::Kind::kMerge:
        return merge(command.merge);
      case Command::Kind::kServe:
        return serve(command.serve);
    }
  } catch (const UsageError& e) {
    std::cerr << "mcp-ping-conformance: " << e.what() << "\n\n" << usage_text();
    return kExitUsage;
  } catch (const BaselineError& e) {
    std::cerr << "mcp-ping-conformance: broken baseline: " << e.what() << "\n";
    return kExitUsage;
  } catch (const FixtureError& e) {
    std::cerr << "mcp-ping-conformance: broken fixture: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "mcp-ping-conformance: " << e.what() << "\n";
    return is_invocation_error(e) ? kExitUsage : kExitSuiteFailure;
  }
  return kExitSuiteFailure;
}
