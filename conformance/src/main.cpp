// mcp-ping-conformance: runs the scenario catalogue against an MCP client's driver.
#include <signal.h>
#include <unistd.h>

#include <iomanip>
#include <iostream>
#include <thread>

#include "conformance/case_plan.hpp"
#include "conformance/case_runner.hpp"
#include "conformance/catalogue_doc.hpp"
#include "conformance/child_process.hpp"
#include "conformance/cli.hpp"
#include "conformance/installation.hpp"
#include "conformance/suite_runner.hpp"
#include "engine/scenario.hpp"
#include "reports/junit.hpp"

namespace {

using namespace mcpping;
namespace fs = std::filesystem;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

// The transports this build has a mock server for.
const std::vector<std::string> kHostedTransports = {"stdio"};

struct Catalogue {
  Defaults defaults;
  SpecReferences refs;
  std::vector<Scenario> scenarios;
};

Catalogue load(const std::optional<fs::path>& fixtures) {
  const fs::path dir = find_fixtures_dir(fixtures);
  Catalogue catalogue;
  catalogue.defaults = load_defaults(dir / "defaults.json");
  catalogue.refs = load_spec_references(dir / "spec-references.json");
  catalogue.scenarios = load_catalogue(dir / "scenarios", catalogue.defaults, catalogue.refs);
  return catalogue;
}

// Ctrl-C or a TERM from CI: drivers sit in their own process groups, so take them down
// before leaving.
void start_interrupt_watcher() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals] {
    int received = 0;
    sigwait(&signals, &received);
    kill_all_children();
    std::cerr << "\nmcp-ping-conformance: interrupted; every driver was stopped\n";
    _exit(128 + received);
  }).detach();
}

int list(const ListOptions& options) {
  const Catalogue catalogue = load(options.fixtures);
  if (options.markdown) {
    std::cout << catalogue_markdown(catalogue.scenarios, catalogue.refs);
    return kExitOk;
  }
  for (const auto& scenario : catalogue.scenarios) {
    for (const auto& transport : scenario.transports) {
      if (options.transport && *options.transport != transport) continue;
      std::cout << std::left << std::setw(44) << scenario.id << " " << std::setw(16) << transport
                << " " << scenario.title << "\n";
    }
  }
  return kExitOk;
}

int run(const RunOptions& options) {
  const Catalogue catalogue = load(options.fixtures);
  if (options.transport && std::find(kHostedTransports.begin(), kHostedTransports.end(),
                                     *options.transport) == kHostedTransports.end()) {
    throw UsageError("--transport " + *options.transport +
                     ": this build has no mock server for it");
  }
  PlanRequest request{options.scenario_globs, options.transport, options.revision,
                      kHostedTransports};
  std::vector<PlannedCase> cases;
  try {
    cases = plan_cases(catalogue.scenarios, request);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (cases.empty()) throw UsageError("no case matches the given --scenario and --transport");

  SuiteSetup setup;
  setup.defaults = catalogue.defaults;
  setup.refs = catalogue.refs;
  setup.mock_stdio_server = find_sibling_executable("mcp-mock-stdio-server");
  setup.driver_argv = options.driver_argv;
  setup.revision = options.revision;
  setup.timeout_multiplier = options.timeout_multiplier;
  fs::create_directories(options.report_dir);
  setup.report_dir = fs::canonical(options.report_dir);

  start_interrupt_watcher();
  precheck_driver(setup, cases.front().transport);

  SuiteOptions suite;
  suite.strict = options.strict;
  suite.jobs = options.jobs ? options.jobs : std::max(2u, 2 * std::thread::hardware_concurrency());
  std::cout << "mcp-ping-conformance " << MCP_PING_VERSION << ": " << cases.size()
            << " cases, revision " << options.revision << ", "
            << (options.strict ? "strict" : "lenient") << ", timeout multiplier "
            << options.timeout_multiplier << ", " << suite.jobs << " at once\n"
            << std::flush;
  RunResult result = run_suite(cases, setup, suite, std::cout);
  result.info.suite_version = MCP_PING_VERSION;
  result.info.revision = options.revision;
  result.info.strict = options.strict;
  result.info.timeout_multiplier = options.timeout_multiplier;
  result.info.driver_argv = options.driver_argv;
  result.info.pong_cap_ms =
      scaled_timeouts(setup.defaults, options.timeout_multiplier).at("pong_cap_ms");

  const fs::path junit = options.junit.value_or(setup.report_dir / "junit.xml");
  write_junit(result, junit);
  std::cout << closing_line(result) << "\n"
            << "reports: " << junit.string() << ", evidence in "
            << (setup.report_dir / "cases").string() << "\n";

  const VerdictCounts counts = count_verdicts(result.cases);
  if (counts.error > 0) return kExitUsage;
  if (counts.fail > 0 || (options.strict && counts.non_strict > 0)) return kExitFailed;
  if (options.unsupported_exit_code && counts.unsupported == counts.total) {
    return *options.unsupported_exit_code;
  }
  return kExitOk;
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
    }
  } catch (const UsageError& e) {
    std::cerr << "mcp-ping-conformance: " << e.what() << "\n\n" << usage_text();
    return kExitUsage;
  } catch (const FixtureError& e) {
    std::cerr << "mcp-ping-conformance: broken fixture: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "mcp-ping-conformance: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitUsage;
}
