#include "conformance/cli.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>

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

using Value = const std::string&;

// An option of a command: what it does with its value, or with "" for a flag.
struct Option {
  std::string_view name;
  std::function<void(Value)> apply;
  bool takes_value = true;
};
using Options = std::vector<Option>;

Options operator+(Options a, const Options& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Option flag(std::string_view name, bool& target, bool value = true) {
  return {name, [&target, value](Value) { target = value; }, false};
}

// Applies the options of `verb` up to the end of the words, or up to "--" (then true: the
// rest is the driver's argv).
bool read_options(const std::string& verb, Words& words, const Options& options) {
  while (!words.done()) {
    std::string word = words.next();
    if (word == "--") return true;
    std::optional<std::string> inline_value = split_inline_value(word);
    const auto option = std::find_if(options.begin(), options.end(),
                                     [&](const Option& o) { return o.name == word; });
    if (option == options.end()) throw UsageError(verb + ": unknown option '" + word + "'");
    if (!option->takes_value && inline_value) throw UsageError(word + " takes no value");
    option->apply(option->takes_value ? words.value_of(word, inline_value) : std::string());
  }
  return false;
}

// `value` when it is one of `known`; a usage error naming them otherwise.
std::string one_of(const std::string& option, Value value, const std::vector<std::string>& known) {
  if (std::find(known.begin(), known.end(), value) == known.end())
    throw UsageError(option + " '" + value + "': expected one of " + join(known, ", "));
  return value;
}

double checked_multiplier(Value value) {
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

long parse_integer(const std::string& option, Value value, long min, long max) {
  char* end = nullptr;
  const long number = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || number < min || number > max) {
    throw UsageError(option + " '" + value + "': expected a whole number from " +
                     std::to_string(min) + " to " + std::to_string(max));
  }
  return number;
}

std::pair<std::string, std::filesystem::path> parse_column(Value value) {
  const auto eq = value.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
    throw UsageError("--column '" + value + "': expected LABEL=REPORT_DIR");
  }
  return {value.substr(0, eq), value.substr(eq + 1)};
}

std::pair<unsigned, unsigned> parse_shard(Value text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw UsageError("--shard '" + text + "': expected I/N");
  const auto total = parse_integer("--shard", text.substr(slash + 1), 1, 1000);
  const auto index = parse_integer("--shard", text.substr(0, slash), 1, total);
  return {static_cast<unsigned>(index), static_cast<unsigned>(total)};
}

// Which cases `run` and `list` take.
template <class Selection>  // RunOptions or ListOptions
Options catalogue_options(Selection& o) {
  return {
      {"--scenario", [&](Value v) { o.scenario_globs.push_back(v); }},
      {"--transport", [&](Value v) { o.transport = one_of("--transport", v, known_transports()); }},
      {"--fixtures", [&](Value v) { o.fixtures = v; }},
      {"--harness", [&](Value v) {
         if (v != "official") throw UsageError("--harness '" + v + "': expected official");
         o.harness = v;
       }}};
}

// How `run` and `serve` play a case.
template <class Play>  // RunOptions or ServeOptions
Options play_options(Play& o) {
  return {{"--revision", [&](Value v) { o.revision = one_of("--revision", v, known_revisions()); }},
          {"--timeout-multiplier", [&](Value v) { o.timeout_multiplier = checked_multiplier(v); }},
          {"--report-dir", [&](Value v) { o.report_dir = v; }}};
}

void parse_run(Words& words, RunOptions& run) {
  const auto precheck = [&run](RunOptions::Precheck mode) {
    return [&run, mode](Value) {
      if (run.precheck != RunOptions::Precheck::kBeside && run.precheck != mode)
        throw UsageError("run: give --precheck-only or --no-precheck, not both");
      run.precheck = mode;
    };
  };
  const auto jobs = [&](Value v) {
    run.jobs = static_cast<unsigned>(parse_integer("--jobs", v, 1, 256));
  };
  const Options own = {flag("--strict", run.strict),
                       {"--junit", [&](Value v) { run.junit = v; }},
                       {"--jobs", jobs},
                       {"-j", jobs},
                       {"--shard", [&](Value v) { run.shard = parse_shard(v); }},
                       flag("--ctest-measurements", run.ctest_measurements),
                       {"--precheck-only", precheck(RunOptions::Precheck::kOnly), false},
                       {"--no-precheck", precheck(RunOptions::Precheck::kSkip), false},
                       flag("--no-driver-sessions", run.driver_sessions, false),
                       {"--baseline", [&](Value v) { run.baseline = v; }},
                       {"--schemas", [&](Value v) { run.schemas = v; }},
                       {"--unsupported-exit-code", [&](Value v) {
                          run.unsupported_exit_code =
                              static_cast<int>(parse_integer("--unsupported-exit-code", v, 0, 255));
                        }}};
  if (!read_options("run", words, catalogue_options(run) + play_options(run) + own))
    throw UsageError("run: give the driver after '--', e.g. run -- ./my-driver --flag");
  run.driver_argv = words.rest();
  if (run.driver_argv.empty()) throw UsageError("run: no driver argv after '--'");
  if (run.harness && run.precheck == RunOptions::Precheck::kOnly)
    throw UsageError("run: a harness has no pre-check (docs/official-harness.md)");
}

void parse_list(Words& words, ListOptions& list) {
  const Options own = {flag("--markdown", list.markdown), flag("--json", list.json)};
  if (read_options("list", words, catalogue_options(list) + own))
    throw UsageError("list takes no driver");
  if (list.markdown && list.json) throw UsageError("list: give --markdown or --json, not both");
  if (list.harness && (list.json || !list.scenario_globs.empty() || list.transport))
    throw UsageError("list --harness takes only --markdown and --fixtures");
}

void parse_serve(Words& words, ServeOptions& serve) {
  const Options own = {
      {"--scenario",
       [&](Value v) {
         if (!serve.scenario.empty()) throw UsageError("serve: give --scenario once: one case");
         if (v.empty()) throw UsageError("--scenario: give a case id");
         serve.scenario = v;
       }},
      {"--transport",
       [&](Value v) { serve.transport = one_of("--transport", v, known_transports()); }},
      {"--fixtures", [&](Value v) { serve.fixtures = v; }},
      {"--wait-ms",
       [&](Value v) { serve.wait_ms = parse_integer("--wait-ms", v, 1000, 86400000); }}};
  if (read_options("serve", words, play_options(serve) + own))
    throw UsageError("serve takes no driver: you drive your client yourself");
  if (serve.scenario.empty())
    throw UsageError("serve: give the case with --scenario ID (see 'mcp-ping-conformance list')");
  if (serve.transport.empty())
    throw UsageError("serve: give the transport with --transport " + join(known_transports(), "|"));
}

void parse_table(Words& words, TableOptions& table) {
  const Options options = {{"--column", [&](Value v) { table.columns.push_back(parse_column(v)); }},
                           {"--html", [&](Value v) {
                              if (v.empty()) throw UsageError("--html: give the file to write");
                              table.html = v;
                            }}};
  if (read_options("table", words, options)) throw UsageError("table takes no driver");
  if (table.columns.empty()) throw UsageError("table: give at least one --column");
}

void parse_merge(Words& words, MergeOptions& merge) {
  const auto output = [&](Value v) { merge.output = v; };
  const Options options = {{"--column", [&](Value v) { merge.columns.push_back(parse_column(v)); }},
                           {"--output", output},
                           {"-o", output}};
  if (read_options("merge", words, options)) throw UsageError("merge takes no driver");
  if (merge.output.empty()) throw UsageError("merge: give the folder to write with --output DIR");
  if (merge.columns.empty()) throw UsageError("merge: give at least one --column");
}

void parse_baseline(Words& words, BaselineOptions& baseline) {
  bool from = false;
  const auto output = [&](Value v) { baseline.output = v; };
  const Options options = {{"--from",
                            [&](Value v) {
                              baseline.from = v;
                              from = true;
                            }},
                           {"--output", output},
                           {"-o", output}};
  if (read_options("baseline", words, options)) throw UsageError("baseline takes no driver");
  if (!from) throw UsageError("baseline: give the report folder of a run with --from DIR");
}

bool is_help(Value word) { return word == "--help" || word == "-h"; }

}  // namespace

Command parse_command_line(const std::vector<std::string>& args) {
  Command command;
  if (args.empty()) throw UsageError("no command given");
  // --help anywhere before the driver's argv asks for the usage, whatever else is there.
  const auto driver = std::find(args.begin(), args.end(), "--");
  if (args.front() == "help" || std::any_of(args.begin(), driver, is_help)) return command;
  Words words(args);
  const std::string verb = words.next();
  using Kind = Command::Kind;
  const std::map<std::string, std::pair<Kind, std::function<void()>>> verbs = {
      {"--version", {Kind::kVersion, [] {}}},
      {"run", {Kind::kRun, [&] { parse_run(words, command.run); }}},
      {"list", {Kind::kList, [&] { parse_list(words, command.list); }}},
      {"serve", {Kind::kServe, [&] { parse_serve(words, command.serve); }}},
      {"baseline", {Kind::kBaseline, [&] { parse_baseline(words, command.baseline); }}},
      {"table", {Kind::kTable, [&] { parse_table(words, command.table); }}},
      {"merge", {Kind::kMerge, [&] { parse_merge(words, command.merge); }}},
  };
  const auto found = verbs.find(verb);
  if (found == verbs.end()) throw UsageError("unknown command '" + verb + "'");
  command.kind = found->second.first;
  found->second.second();
  return command;
}

}  // namespace mcpping
