// The command line of mcp-ping-conformance.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/revision.hpp"

namespace mcpping {

// A command line the suite cannot act on (exit status 2).
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct RunOptions {
  std::vector<std::string> scenario_globs;
  std::optional<std::string> transport;
  bool strict = false;
  std::string revision = default_revision();
  double timeout_multiplier = 1.0;
  std::filesystem::path report_dir = "mcp-ping-report";
  std::optional<std::filesystem::path> junit;  // default: <report dir>/junit.xml
  std::optional<std::filesystem::path> fixtures;
  unsigned jobs = 0;                              // 0: chosen from the machine
  std::optional<int> unsupported_exit_code;       // exit status when every case was UNSUPPORTED
  std::optional<std::filesystem::path> baseline;  // known failures (docs/baselines.md)
  // The specification's schema/ folder: every client message is validated against it
  // (wire:schema-valid); none: schema validation is off.
  std::optional<std::filesystem::path> schemas;
  std::optional<std::pair<unsigned, unsigned>> shard;  // I/N: this run's part of the cases
  bool ctest_measurements = false;  // latency figures as CTest measurements in the output
  // The driver's pre-check (docs/writing-a-driver.md, step 1): beside the first cases, alone
  // (the ctest module's precheck test), or not at all (its case tests, which need that test).
  enum class Precheck { kBeside, kOnly, kSkip } precheck = Precheck::kBeside;
  // A driver that offers it at its pre-check runs its cases in one process per job slot
  // (driver contract v1.3); --no-driver-sessions: one process per case, as in v1.2.
  bool driver_sessions = true;
  // "official": driver_argv is an official-suite client harness (docs/official-harness.md).
  std::optional<std::string> harness;
  std::vector<std::string> driver_argv;
};

struct ListOptions {
  std::vector<std::string> scenario_globs;  // empty: every case
  std::optional<std::string> transport;
  bool markdown = false;               // docs/catalogue.md instead of one line per case
  bool json = false;                   // the catalogue as one JSON document (catalogue_json.hpp)
  std::optional<std::string> harness;  // "official": the cases such a harness runs
  std::optional<std::filesystem::path> fixtures;
};

struct BaselineOptions {
  std::filesystem::path from;                   // a report folder holding results.json
  std::optional<std::filesystem::path> output;  // default: stdout
};

struct TableOptions {
  std::vector<std::pair<std::string, std::filesystem::path>> columns;  // label, report folder
  std::filesystem::path html;  // --html FILE: the side-by-side page too; empty: none
};

// Report folders with the same label are shards of one client's run.
struct MergeOptions {
  std::filesystem::path output;
  std::vector<std::pair<std::string, std::filesystem::path>> columns;  // label, report folder
};

// `serve`: one case's mock server for a client driven by hand (docs/writing-a-driver.md).
struct ServeOptions {
  std::string scenario;  // an id, or a glob that matches exactly one case
  std::string transport;
  std::string revision = default_revision();
  double timeout_multiplier = 1.0;
  std::filesystem::path report_dir = "mcp-ping-report";
  std::optional<std::filesystem::path> fixtures;
  long wait_ms = 600000;  // the case deadline: a person needs more than the catalogue's 20 s
};

struct Command {
  enum class Kind {
    kRun,
    kList,
    kBaseline,
    kTable,
    kMerge,
    kServe,
    kHelp,
    kVersion
  } kind = Kind::kHelp;
  RunOptions run;
  ListOptions list;
  BaselineOptions baseline;
  TableOptions table;
  MergeOptions merge;
  ServeOptions serve;
};

// Throws UsageError with a message that names the offending word.
Command parse_command_line(const std::vector<std::string>& args);

std::string usage_text();

}  // namespace mcpping
