#include "conformance/cli.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/scenario.hpp"
#include "core/text.hpp"

namespace mcpping {

std::string usage_text() {
  return R"(usage:
  mcp-ping-conformance list [--scenario GLOB]... [--transport T] [--fixtures DIR]
                            [--markdown | --json]
  mcp-ping-conformance run [--scenario GLOB]... [--transport T] [--strict]
                           [--revision R] [--timeout-multiplier X] [--report-dir DIR]
                           [--junit FILE] [--jobs N] [--fixtures DIR]
                           [--unsupported-exit-code N] [--baseline FILE]
                           [--schemas DIR] [--shard I/N] [--ctest-measurements]
                           [--precheck-only | --no-precheck] [--no-driver-sessions]
                           -- <driver argv...>
  mcp-ping-conformance run --harness official [run options] -- <harness argv...>
  mcp-ping-conformance list --harness official [--markdown]
  mcp-ping-conformance baseline --from REPORT_DIR [--output FILE]
  mcp-ping-conformance table --column LABEL=REPORT_DIR... [--html FILE]
  mcp-ping-conformance merge --output DIR --column LABEL=REPORT_DIR...
  mcp-ping-conformance serve --scenario ID --transport T [--revision R]
                             [--timeout-multiplier X] [--report-dir DIR] [--fixtures DIR]
                             [--wait-ms N]
  mcp-ping-conformance --help | --version

run options:
  --scenario GLOB          cases whose id matches (repeatable; '*' also matches '/')
  --transport T            stdio | streamable-http | sse (default: every transport)
  --strict                 NON_STRICT verdicts fail the run
  --revision R             protocol revision the driver offers (default 2025-11-25)
  --timeout-multiplier X   scales every bound of the timeout table (default 1)
  --report-dir DIR         evidence and reports (default ./mcp-ping-report)
  --junit FILE             JUnit XML (default <report-dir>/junit.xml)
  --jobs N                 cases run at once (default: 4 x cores, fewer when the
                           client's measured start-up is costly)
  --fixtures DIR           scenario fixtures (default: the suite's own)
  --unsupported-exit-code N  exit status when every case is UNSUPPORTED (for ctest)
  --shard I/N              run only the I-th of N deterministic parts of the cases (1-based)
  --ctest-measurements     print single-pong and burst figures as CTest measurements (CDash)
  --precheck-only          only check that the driver exits 127 for an op it does not know
                           (run beside the first cases otherwise); exit 0 when it does
  --no-precheck            skip that check: one run of --precheck-only already made it
                           (the ctest module's precheck test)
  --no-driver-sessions     start the driver once per case even when it offers to run
                           case after case in one process (docs/driver-contract.md, v1.3)
  --harness official       the argv is a client harness of the official MCP conformance suite
                           (URL last, MCP_CONFORMANCE_SCENARIO=initialize), run unchanged on
                           the cases it can run (docs/official-harness.md)
  --baseline FILE          known failures (YAML): expected failures do not fail the run,
                           listed cases that pass do (stale), flaky ones never gate
  --schemas DIR            the specification's JSON schemas, laid out as its repository's
                           schema/ folder (DIR/<revision>/schema.json): every message the
                           client sends is validated (wire:schema-valid); without it, off

list options:
  --scenario, --transport, --fixtures   as for run: the cases listed
  --markdown               the cases as in docs/catalogue.md, with checks and spec sentences
  --json                   the catalogue as one JSON document for tools: each case's title,
                           transports, revisions, exclusive, deadline_kill, level and checks
                           (docs/ctest.md)
  --harness official       the cases an official-suite client harness runs (with --markdown:
                           docs/official-harness-cases.md)

serve: runs one case's mock server for a client you drive by hand (an IDE, a chat app, your
  own CLI): prints the URL, or over stdio the command for the client to start, and what the
  client should do; waits until the script ends or Ctrl-C; judges; exit status as for run.
  --scenario ID            the case: an id, or a glob matching exactly one case
  --transport T            stdio | streamable-http | sse
  --wait-ms N              the case deadline, and the wait for each request the case asks
                           the client to make (default 600000: 10 minutes)
  --revision, --timeout-multiplier, --report-dir, --fixtures   as for run

baseline: writes a baseline (YAML) that expects exactly the failures of an earlier run.
table: prints a Markdown table of several runs side by side (one column per client); with
  --html FILE also writes them as one HTML page, each cell linking to the client's page for
  the case and its transcript (links relative to FILE's folder: publish that folder with the
  report folders inside it).
merge: joins report folders into DIR (junit.xml, summary.md, html/, clients/<label>/
  results.json); folders with the same LABEL are shards of one client's run.

The driver argv follows '--' as separate words; it is never split on spaces.
Exit status: 0 nothing failed, 1 a case failed or a baseline entry is stale, 2 a usage error
(command line, baseline, fixture, driver pre-check), 3 the suite failed (a case is ERROR).
)";
}

namespace {

// "--name=value" becomes "--name" and returns "value"; any other word is left as it is.
std::optional<std::string> split_inline_value(std::string& word) {
  const auto eq = word.find('=');
  if (word.rfind("--", 0) != 0 || eq == std::string::npos) return std::nullopt;
  std::string value = word.substr(eq + 1);
  word.resize(eq);
  return value;
}

class Words {
 public:
  explicit Words(const std::vector<std::string>& args) : args_(args) {}
  bool done() const { return i_ >= args_.size(); }
  std::string next() { return args_[i_++]; }
  // The value of an option given as "--name value" or "--name=value".
  std::string value_of(const std::string& option, std::optional<std::string>& inline_value) {
    if (inline_value) return *std::exchange(inline_value, std::nullopt);
    if (done()) throw UsageError(option + " needs a value");
    return next();
  }
  std::vector<std::string> rest() {
    std::vector<std::string> out(args_.begin() + static_cast<std::ptrdiff_t>(i_), args_.end());
    i_ = args_.size();
    return out;
  }

 private:
  const std::vector<std::string>& args_;
  std::size_t i_ = 0;
};

std::string checked_revision(const std::string& value) {
  if (!revision_index(value)) {
    throw UsageError("--revision '" + value + "': expected one of " +
                     join(known_revisions(), ", "));
  }
  return value;
}

std::string checked_transport(const std::string& value) {
  const auto& known = known_transports();
  if (std::find(known.begin(), known.end(), value) == known.end()) {
    throw UsageError("--transport '" + value + "': expected one of " + join(known, ", "));
  }
  return value;
}

double checked_multiplier(const std::string& value) {
  char* end = nullptr;
  const double multiplier = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(multiplier)) {
    throw UsageError("--timeout-multiplier '" + value + "': not a number");
  }
  if (multiplier < 0.1 || multiplier > 100) {
    throw UsageError("--timeout-multiplier must be from 0.1 to 100");
  }
  return multiplier;
}

long parse_integer(const std::string& option, const std::string& value, long min, long max) {
  char* end = nullptr;
  const long number = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || number < min || number > max) {
    throw UsageError(option + " '" + value + "': expected a whole number from " +
                     std::to_string(min) + " to " + std::to_string(max));
  }
  return number;
}

std::pair<std::string, std::filesystem::path> parse_column(const std::string& value) {
  const auto eq = value.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
    throw UsageError("--column '" + value + "': expected LABEL=REPORT_DIR");
  }
  return {value.substr(0, eq), value.substr(eq + 1)};
}

Command parse_table(Words& words) {
  Command command;
  command.kind = Command::Kind::kTable;
  while (!words.done()) {
    std::string word = words.next();
    std::optional<std::string> inline_value = split_inline_value(word);
    if (word == "--column") {
      command.table.columns.push_back(parse_column(words.value_of(word, inline_value)));
    } else if (word == "--html") {
      command.table.html = words.value_of(word, inline_value);
      if (command.table.html.empty()) throw UsageError("--html: give the file to write");
    } else {
      throw UsageError("table: unknown option '" + word + "'");
    }
  }
  if (command.table.columns.empty()) throw UsageError("table: give at least one --column");
  return command;
}

Command parse_merge(Words& words) {
  Command command;
  command.kind = Command::Kind::kMerge;
  while (!words.done()) {
    std::string word = words.next();
    std::optional<std::string> inline_value = split_inline_value(word);
    if (word == "--column") {
      command.merge.columns.push_back(parse_column(words.value_of(word, inline_value)));
    } else if (word == "--output" || word == "-o") {
      command.merge.output = words.value_of(word, inline_value);
    } else if (word == "--help" || word == "-h") {
      command.kind = Command::Kind::kHelp;
      return command;
    } else {
      throw UsageError("merge: unknown option '" + word + "'");
    }
  }
  if (command.merge.output.empty()) {
    throw UsageError("merge: give the folder to write with --output DIR");
  }
  if (command.merge.columns.empty()) throw UsageError("merge: give at least one --column");
  return command;
}

Command parse_baseline(Words& words) {
  Command command;
  command.kind = Command::Kind::kBaseline;
  bool from = false;
  while (!words.done()) {
    std::string word = words.next();
    std::optional<std::string> inline_value = split_inline_value(word);
    if (word == "--from") {
      command.baseline.from = words.value_of(word, inline_value);
      from = true;
    } else if (word == "--output" || word == "-o") {
      command.baseline.output = std::filesystem::path(words.value_of(word, inline_value));
    } else if (word == "--help" || word == "-h") {
      command.kind = Command::Kind::kHelp;
      return command;
    } else {
      throw UsageError("baseline: unknown option '" + word + "'");
    }
  }
  if (!from) throw UsageError("baseline: give the report folder of a run with --from DIR");
  return command;
}

Command parse_serve(Words& words) {
  Command command;
  command.kind = Command::Kind::kServe;
  ServeOptions& serve = command.serve;
  while (!words.done()) {
    std::string word = words.next();
    std::optional<std::string> inline_value = split_inline_value(word);
    const auto value = [&] { return words.value_of(word, inline_value); };
    if (word == "--help" || word == "-h") {
      command.kind = Command::Kind::kHelp;
      return command;
    } else if (word == "--scenario") {
      if (!serve.scenario.empty()) throw UsageError("serve: give --scenario once: one case");
      serve.scenario = value();
      if (serve.scenario.empty()) throw UsageError("--scenario: give a case id");
    } else if (word == "--transport") {
      serve.transport = checked_transport(value());
    } else if (word == "--revision") {
      serve.revision = checked_revision(value());
    } else if (word == "--timeout-multiplier") {
      serve.timeout_multiplier = checked_multiplier(value());
    } else if (word == "--report-dir") {
      serve.report_dir = value();
    } else if (word == "--fixtures") {
      serve.fixtures = std::filesystem::path(value());
    } else if (word == "--wait-ms") {
      serve.wait_ms = parse_integer(word, value(), 1000, 86400000);
    } else if (word == "--") {
      throw UsageError("serve takes no driver: you drive your client yourself");
    } else {
      throw UsageError("serve: unknown option '" + word + "'");
    }
  }
  if (serve.scenario.empty()) {
    throw UsageError("serve: give the case with --scenario ID (see 'mcp-ping-conformance list')");
  }
  if (serve.transport.empty()) {
    throw UsageError("serve: give the transport with --transport " + join(known_transports(), "|"));
  }
  return command;
}

// An option of `run` and `list` alike; false when `word` is none.
template <class Value>
bool parse_catalogue_option(const std::string& word, const Value& value, RunOptions& run,
                            ListOptions& list) {
  if (word == "--transport") {
    run.transport = list.transport = checked_transport(value());
  } else if (word == "--fixtures") {
    run.fixtures = list.fixtures = std::filesystem::path(value());
  } else if (word == "--scenario") {
    run.scenario_globs.push_back(value());
    list.scenario_globs.push_back(run.scenario_globs.back());
  } else if (word == "--harness") {
    run.harness = list.harness = value();
    if (*run.harness != "official") {
      throw UsageError("--harness '" + *run.harness + "': expected official");
    }
  } else {
    return false;
  }
  return true;
}

std::pair<unsigned, unsigned> parse_shard(const std::string& word, const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw UsageError("--shard '" + text + "': expected I/N");
  const auto total = parse_integer(word, text.substr(slash + 1), 1, 1000);
  const auto index = parse_integer(word, text.substr(0, slash), 1, total);
  return {static_cast<unsigned>(index), static_cast<unsigned>(total)};
}

// An option of `run` only; throws UsageError for an unknown one.
template <class Value>
void parse_run_option(const std::string& word, const Value& value, RunOptions& run) {
  if (word == "--strict") {
    run.strict = true;
  } else if (word == "--revision") {
    run.revision = checked_revision(value());
  } else if (word == "--timeout-multiplier") {
    run.timeout_multiplier = checked_multiplier(value());
  } else if (word == "--report-dir") {
    run.report_dir = value();
  } else if (word == "--junit") {
    run.junit = std::filesystem::path(value());
  } else if (word == "--jobs" || word == "-j") {
    run.jobs = static_cast<unsigned>(parse_integer(word, value(), 1, 256));
  } else if (word == "--shard") {
    run.shard = parse_shard(word, value());
  } else if (word == "--ctest-measurements") {
    run.ctest_measurements = true;
  } else if (word == "--precheck-only" || word == "--no-precheck") {
    const auto mode =
        word == "--no-precheck" ? RunOptions::Precheck::kSkip : RunOptions::Precheck::kOnly;
    if (run.precheck != RunOptions::Precheck::kBeside && run.precheck != mode) {
      throw UsageError("run: give --precheck-only or --no-precheck, not both");
    }
    run.precheck = mode;
  } else if (word == "--no-driver-sessions") {
    run.driver_sessions = false;
  } else if (word == "--baseline") {
    run.baseline = std::filesystem::path(value());
  } else if (word == "--schemas") {
    run.schemas = std::filesystem::path(value());
  } else if (word == "--unsupported-exit-code") {
    run.unsupported_exit_code = static_cast<int>(parse_integer(word, value(), 0, 255));
  } else {
    throw UsageError("run: unknown option '" + word + "'");
  }
}

// An option of `list` only; throws UsageError for an unknown one.
void parse_list_option(const std::string& word, ListOptions& list) {
  if (word == "--markdown") {
    list.markdown = true;
  } else if (word == "--json") {
    list.json = true;
  } else {
    throw UsageError("list: unknown option '" + word + "'");
  }
}

// What `run` and `list` need once every option is read; `run` takes the driver's argv.
void finish_run_or_list(Command& command, Words& words, bool saw_separator) {
  RunOptions& run = command.run;
  const ListOptions& list = command.list;
  if (command.kind == Command::Kind::kRun) {
    if (!saw_separator) {
      throw UsageError("run: give the driver after '--', e.g. run -- ./my-driver --flag");
    }
    run.driver_argv = words.rest();
    if (run.driver_argv.empty()) throw UsageError("run: no driver argv after '--'");
    if (run.harness && run.precheck == RunOptions::Precheck::kOnly) {
      throw UsageError("run: a harness has no pre-check (docs/official-harness.md)");
    }
  } else if (saw_separator) {
    throw UsageError("list takes no driver");
  } else if (list.markdown && list.json) {
    throw UsageError("list: give --markdown or --json, not both");
  } else if (list.harness && (list.json || !list.scenario_globs.empty() || list.transport)) {
    throw UsageError("list --harness takes only --markdown and --fixtures");
  }
}

Command parse_run_or_list(const std::string& verb, Words& words) {
  Command command;
  command.kind = verb == "run" ? Command::Kind::kRun : Command::Kind::kList;
  bool saw_separator = false;
  while (!words.done()) {
    std::string word = words.next();
    if (word == "--") {
      saw_separator = true;
      break;
    }
    std::optional<std::string> inline_value = split_inline_value(word);
    const auto value = [&] { return words.value_of(word, inline_value); };
    if (word == "--help" || word == "-h") {
      command.kind = Command::Kind::kHelp;
      return command;
    }
    if (!parse_catalogue_option(word, value, command.run, command.list)) {
      if (verb == "list") {
        parse_list_option(word, command.list);
      } else {
        parse_run_option(word, value, command.run);
      }
    }
    if (inline_value) throw UsageError(word + " takes no value");
  }
  finish_run_or_list(command, words, saw_separator);
  return command;
}

}  // namespace

Command parse_command_line(const std::vector<std::string>& args) {
  Command command;
  Words words(args);
  if (words.done()) throw UsageError("no command given");
  const std::string verb = words.next();
  if (verb == "--help" || verb == "-h" || verb == "help") return command;
  if (verb == "--version") {
    command.kind = Command::Kind::kVersion;
    return command;
  }
  if (verb == "baseline") return parse_baseline(words);
  if (verb == "table") return parse_table(words);
  if (verb == "merge") return parse_merge(words);
  if (verb == "serve") return parse_serve(words);
  if (verb != "run" && verb != "list") throw UsageError("unknown command '" + verb + "'");
  return parse_run_or_list(verb, words);
}

}  // namespace mcpping
