// ci-recipe DOC RECIPE JOB OUT_DIR [--context KEY=VALUE]... [--set NAME=VALUE]...
//           [--append NAME=WORDS]... [--stub TEXT]...
//
// Turns one CI recipe of docs/ci.md into scripts a test can run, so the recipes' shell
// steps cannot drift from what the suite accepts. The recipe is the ```yaml block that
// follows the line "<!-- ci-recipe: RECIPE -->"; JOB names a job in it. The YAML must parse
// and have the keys its CI needs (below); anything this tool cannot reproduce faithfully
// (an unknown ${{ }} expression, an `if:` other than "run after a failure too", a variable
// that references another) is an error rather than a guess.
//
// GitHub Actions (the block has `jobs`): every step of jobs.JOB becomes OUT_DIR/<n>.sh
// (`run`: its environment, workflow < job < step, as exports, then its script) or
// OUT_DIR/<n>.with (`uses`: one "key<TAB>value" line per input). OUT_DIR/plan has one line
// per step: "<n> <run|uses|stub> <success|always> <name or action>", where `always` marks a
// step that also runs after a failed one (`always()`, `!cancelled()`). A --stub TEXT names a
// run step that is not executed (network, long builds); it is planned as `stub`.
//
// GitLab CI (the block has JOB at its top): before_script and script become OUT_DIR/1.sh,
// after_script OUT_DIR/2.sh (always), and the artifacts OUT_DIR/3.with ("when", "path" and
// "junit" lines). A --stub TEXT stubs every script item that starts with TEXT: the item is
// replaced by a `:` line naming it.
//
// Both: ${{ KEY }} is replaced by the --context KEY's value; --set replaces a variable the
// recipe defines and --append adds words to it (a NAME the recipe does not define is an
// error); a --stub that matches nothing is an error. Exit status: 0, 1 for a recipe that
// does not meet the rules (the message says where), 2 for a bad command line.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr int kBadRecipe = 1;
constexpr int kBadCommandLine = 2;

struct RecipeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  fs::path doc;
  std::string recipe;
  std::string job;
  fs::path out;
  std::map<std::string, std::string> contexts;
  std::map<std::string, std::string> sets;
  std::map<std::string, std::string> appends;
  std::vector<std::string> stubs;
};

std::pair<std::string, std::string> key_value(const std::string& option, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw UsageError(option + " '" + text + "': KEY=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Options parse_command_line(int argc, char** argv) {
  Options options;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.rfind("--", 0) == 0) {
      if (i + 1 >= argc) throw UsageError(word + " needs a value");
      const std::string value = argv[++i];
      if (word == "--context") {
        options.contexts.insert(key_value(word, value));
      } else if (word == "--set") {
        options.sets.insert(key_value(word, value));
      } else if (word == "--append") {
        options.appends.insert(key_value(word, value));
      } else if (word == "--stub") {
        options.stubs.push_back(value);
      } else {
        throw UsageError("unknown option " + word);
      }
    } else {
      positional.push_back(word);
    }
  }
  if (positional.size() != 4) throw UsageError("expected DOC RECIPE JOB OUT_DIR");
  options.doc = positional[0];
  options.recipe = positional[1];
  options.job = positional[2];
  options.out = positional[3];
  return options;
}

// The ```yaml block after "<!-- ci-recipe: NAME -->" (blank lines between are allowed).
std::string recipe_block(const fs::path& doc, const std::string& name) {
  std::ifstream in(doc);
  if (!in) throw UsageError("cannot read " + doc.string());
  const std::string marker = "<!-- ci-recipe: " + name + " -->";
  std::string line;
  int line_number = 0;
  int marker_line = 0;
  std::string block;
  enum { kSeeking, kBeforeFence, kInBlock, kDone } state = kSeeking;
  while (std::getline(in, line)) {
    ++line_number;
    if (line == marker) {
      if (marker_line) {
        throw RecipeError(doc.string() + ":" + std::to_string(line_number) + ": a second " +
                          marker + " (the first is on line " + std::to_string(marker_line) + ")");
      }
      marker_line = line_number;
      state = kBeforeFence;
    } else if (state == kBeforeFence && !line.empty()) {
      if (line != "```yaml") {
        throw RecipeError(doc.string() + ":" + std::to_string(line_number) +
                          ": expected ```yaml after " + marker);
      }
      state = kInBlock;
    } else if (state == kInBlock) {
      if (line == "```") {
        state = kDone;
      } else {
        block += line + "\n";
      }
    }
  }
  if (!marker_line) throw RecipeError(doc.string() + ": no " + marker);
  if (state != kDone)
    throw RecipeError(doc.string() + ": the block after " + marker + " never ends");
  return block;
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// Replaces each ${{ KEY }} by its context value.
std::string substitute(const std::string& text, const std::map<std::string, std::string>& contexts,
                       const std::string& where) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const auto open = text.find("${{", at);
    if (open == std::string::npos) break;
    const auto close = text.find("}}", open);
    if (close == std::string::npos) throw RecipeError(where + ": unterminated ${{");
    const std::string key = trim(text.substr(open + 3, close - open - 3));
    const auto found = contexts.find(key);
    if (found == contexts.end()) {
      throw RecipeError(where + ": the expression ${{ " + key +
                        " }} has no value here (pass it with --context)");
    }
    out += text.substr(at, open - at) + found->second;
    at = close + 2;
  }
  return out + text.substr(at);
}

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

YAML::Node required(const YAML::Node& node, const std::string& key, const std::string& where) {
  if (!node.IsMap() || !node[key]) throw RecipeError(where + ": no `" + key + "`");
  return node[key];
}

// node[a][b]...: an undefined node when any level is missing (yaml-cpp throws on indexing a
// missing node).
YAML::Node optional_path(YAML::Node node, const std::vector<std::string>& keys) {
  for (const auto& key : keys) {
    if (!node.IsMap() || !node[key]) return YAML::Node(YAML::NodeType::Undefined);
    node.reset(node[key]);  // not `=`, which would overwrite the parent's content
  }
  return node;
}

std::string scalar(const YAML::Node& node, const std::string& where) {
  if (!node.IsScalar()) throw RecipeError(where + ": expected a scalar");
  return node.as<std::string>();
}

using Environment = std::vector<std::pair<std::string, std::string>>;

// Applies one level of `env`/`variables` over the levels before it.
void add_environment(Environment& environment, const YAML::Node& node, const std::string& where,
                     const Options& options) {
  if (!node) return;
  if (!node.IsMap()) throw RecipeError(where + ": expected a map of variables");
  for (const auto& entry : node) {
    const std::string name = entry.first.as<std::string>();
    const std::string value =
        substitute(scalar(entry.second, where + "." + name), options.contexts, where + "." + name);
    bool replaced = false;
    for (auto& [existing, existing_value] : environment) {
      if (existing == name) {
        existing_value = value;
        replaced = true;
      }
    }
    if (!replaced) environment.emplace_back(name, value);
  }
}

// --set and --append: only on variables the recipe defines, so an override cannot outlive a
// variable the recipe dropped.
void apply_overrides(Environment& environment, const Options& options) {
  for (const auto& [name, value] : options.sets) {
    bool found = false;
    for (auto& [existing, existing_value] : environment) {
      if (existing == name) existing_value = value, found = true;
    }
    if (!found) throw RecipeError("--set " + name + ": the recipe defines no such variable");
  }
  for (const auto& [name, words] : options.appends) {
    bool found = false;
    for (auto& [existing, existing_value] : environment) {
      if (existing == name) {
        existing_value += existing_value.empty() ? words : " " + words;
        found = true;
      }
    }
    if (!found) throw RecipeError("--append " + name + ": the recipe defines no such variable");
  }
}

std::string exports(const Environment& environment) {
  std::string out;
  for (const auto& [name, value] : environment) {
    out += "export " + name + "=" + shell_quoted(value) + "\n";
  }
  return out;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// `always` when the step also runs after a failed one; a condition this tool cannot
// evaluate is refused.
std::string when_of(const YAML::Node& step, const std::string& where) {
  if (!step["if"]) return "success";
  const std::string condition = trim(scalar(step["if"], where + ".if"));
  if (condition == "always()" || condition == "!cancelled()" || condition == "${{ always() }}" ||
      condition == "${{ !cancelled() }}") {
    return "always";
  }
  throw RecipeError(where + ".if: '" + condition +
                    "' is not one this test evaluates (always(), !cancelled())");
}

class StubTracker {
 public:
  explicit StubTracker(const std::vector<std::string>& stubs) : stubs_(stubs) {}
  bool by_name(const std::string& name) {
    return mark([&](const auto& s) { return s == name; });
  }
  bool by_prefix(const std::string& text) {
    return mark([&](const auto& s) { return text.rfind(s, 0) == 0; });
  }
  void require_all_used() const {
    for (const auto& stub : stubs_) {
      if (!used_.count(stub))
        throw RecipeError("--stub '" + stub + "' matches nothing in the recipe");
    }
  }

 private:
  template <typename Match>
  bool mark(Match match) {
    for (const auto& stub : stubs_) {
      if (match(stub)) {
        used_.insert(stub);
        return true;
      }
    }
    return false;
  }
  const std::vector<std::string>& stubs_;
  std::set<std::string> used_;
};

void github_job(const YAML::Node& workflow, const Options& options) {
  const std::string where = "jobs." + options.job;
  required(workflow, "name", "the workflow");
  required(workflow, "on", "the workflow");
  const YAML::Node job = required(required(workflow, "jobs", "the workflow"), options.job, "jobs");
  required(job, "runs-on", where);
  const YAML::Node shell = optional_path(job, {"defaults", "run", "shell"});
  if (!shell.IsScalar() || shell.as<std::string>() != "bash") {
    throw RecipeError(where + ".defaults.run.shell: must be bash (the steps use bash arrays)");
  }
  Environment base;
  add_environment(base, workflow["env"], "env", options);
  add_environment(base, job["env"], where + ".env", options);

  const YAML::Node steps = required(job, "steps", where);
  if (!steps.IsSequence() || steps.size() == 0) throw RecipeError(where + ".steps: empty");
  StubTracker stubs(options.stubs);
  std::ostringstream plan;
  int n = 0;
  for (const auto& step : steps) {
    ++n;
    const std::string at = where + ".steps[" + std::to_string(n - 1) + "]";
    if (static_cast<bool>(step["run"]) == static_cast<bool>(step["uses"])) {
      throw RecipeError(at + ": needs exactly one of `run` and `uses`");
    }
    const std::string when = when_of(step, at);
    if (step["uses"]) {
      const std::string action = scalar(step["uses"], at + ".uses");
      std::string with;
      if (step["with"]) {
        for (const auto& input : step["with"]) {
          const std::string key = input.first.as<std::string>();
          std::string value = substitute(scalar(input.second, at + ".with." + key),
                                         options.contexts, at + ".with." + key);
          if (!value.empty() && value.back() == '\n') value.pop_back();
          // One line per input: a multi-line value (several paths) becomes several lines.
          std::istringstream lines(value);
          for (std::string line; std::getline(lines, line);) with += key + "\t" + line + "\n";
        }
      }
      write_file(options.out / (std::to_string(n) + ".with"), with);
      plan << n << " uses " << when << " " << action << "\n";
      continue;
    }
    const std::string name = scalar(required(step, "name", at), at + ".name");
    if (stubs.by_name(name)) {
      plan << n << " stub " << when << " " << name << "\n";
      continue;
    }
    Environment environment = base;
    add_environment(environment, step["env"], at + ".env", options);
    apply_overrides(environment, options);
    std::string script = exports(environment);
    if (step["working-directory"]) {
      script += "cd " + shell_quoted(scalar(step["working-directory"], at)) + "\n";
    }
    script += substitute(scalar(step["run"], at + ".run"), options.contexts, at + ".run");
    write_file(options.out / (std::to_string(n) + ".sh"), script);
    plan << n << " run " << when << " " << name << "\n";
  }
  stubs.require_all_used();
  // --set and --append must name a variable even when only stubbed steps would have used it.
  Environment all = base;
  apply_overrides(all, options);
  write_file(options.out / "plan", plan.str());
}

std::string gitlab_items(const YAML::Node& items, const std::string& where, StubTracker& stubs) {
  std::string script;
  if (!items) return script;
  if (!items.IsSequence()) throw RecipeError(where + ": expected a list of commands");
  for (const auto& item : items) {
    const std::string text = scalar(item, where);
    if (stubs.by_prefix(text)) {
      script += ": not exercised: " + shell_quoted(text.substr(0, text.find('\n'))) + "\n";
    } else {
      script += text + (text.empty() || text.back() != '\n' ? "\n" : "");
    }
  }
  return script;
}

void gitlab_job(const YAML::Node& pipeline, const Options& options) {
  const std::string where = options.job;
  const YAML::Node job = required(pipeline, options.job, "the pipeline");
  required(job, "image", where);
  Environment environment;
  add_environment(environment, pipeline["variables"], "variables", options);
  add_environment(environment, job["variables"], where + ".variables", options);
  for (const auto& [name, value] : environment) {
    if (value.find('$') != std::string::npos) {
      throw RecipeError(where + ".variables." + name +
                        ": references another variable, which this test does not expand");
    }
  }
  apply_overrides(environment, options);
  StubTracker stubs(options.stubs);
  const std::string script = gitlab_items(job["before_script"], where + ".before_script", stubs) +
                             gitlab_items(required(job, "script", where), where + ".script", stubs);
  write_file(options.out / "1.sh", exports(environment) + script);
  std::ostringstream plan;
  plan << "1 run success script\n";
  if (job["after_script"]) {
    write_file(
        options.out / "2.sh",
        exports(environment) + gitlab_items(job["after_script"], where + ".after_script", stubs));
    plan << "2 run always after_script\n";
  }
  stubs.require_all_used();

  const YAML::Node artifacts = required(job, "artifacts", where);
  std::string with =
      "when\t" + scalar(required(artifacts, "when", where + ".artifacts"), where) + "\n";
  const YAML::Node paths = required(artifacts, "paths", where + ".artifacts");
  if (!paths.IsSequence()) throw RecipeError(where + ".artifacts.paths: expected a list");
  for (const auto& path : paths) with += "path\t" + scalar(path, where + ".artifacts.paths") + "\n";
  const YAML::Node junit =
      required(required(artifacts, "reports", where + ".artifacts"), "junit", where);
  with += "junit\t" + scalar(junit, where + ".artifacts.reports.junit") + "\n";
  write_file(options.out / "3.with", with);
  plan << "3 uses always gitlab:artifacts\n";
  write_file(options.out / "plan", plan.str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse_command_line(argc, argv);
    const std::string block = recipe_block(options.doc, options.recipe);
    YAML::Node recipe;
    try {
      recipe = YAML::Load(block);
    } catch (const YAML::Exception& e) {
      throw RecipeError("recipe " + options.recipe + ": the YAML does not parse: " + e.what());
    }
    if (!recipe.IsMap()) throw RecipeError("recipe " + options.recipe + ": not a YAML map");
    fs::create_directories(options.out);
    if (recipe["jobs"]) {
      github_job(recipe, options);
    } else {
      gitlab_job(recipe, options);
    }
    return 0;
  } catch (const UsageError& e) {
    std::cerr << "ci-recipe: " << e.what()
              << "\nusage: ci-recipe DOC RECIPE JOB OUT_DIR [--context KEY=VALUE]... "
                 "[--set NAME=VALUE]... [--append NAME=WORDS]... [--stub TEXT]...\n";
    return kBadCommandLine;
  } catch (const std::exception& e) {
    std::cerr << "ci-recipe: " << e.what() << "\n";
    return kBadRecipe;
  }
}
