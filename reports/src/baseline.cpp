#include "reports/baseline.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/check_registry.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "reports/evidence.hpp"

namespace mcpping {

std::string BaselineEntry::describe() const {
  const auto& id = !finding.empty() ? finding : check_id.empty() ? case_id : check_id;
  return id + (transport ? " (" + *transport + ")" : "");
}

namespace {

bool is_collateral(const std::string& short_id) {
  return is_builtin_check(short_id) && builtin_check(short_id).kind == CheckKind::Collateral;
}

[[noreturn]] void fail(const std::filesystem::path& file, const YAML::Node& node,
                       const std::string& why) {
  const int line = node.IsDefined() ? node.Mark().line + 1 : 0;
  throw BaselineError(file.string() + ":" + std::to_string(line) + ": " + why);
}

std::vector<BaselineEntry> read_entries(const std::filesystem::path& file, const YAML::Node& list,
                                        const std::string& key) {
  std::vector<BaselineEntry> entries;
  if (!list.IsDefined() || list.IsNull()) return entries;
  if (!list.IsSequence()) fail(file, list, key + " must be a list of entries");
  for (const auto& node : list) {
    if (!node.IsMap())
      fail(file, node, key + ": each entry is a map with case or check, and reason");
    BaselineEntry entry;
    entry.line = node.Mark().line + 1;
    for (const auto& member : node) {
      if (!member.first.IsScalar()) fail(file, member.first, key + ": a member's name is text");
      const auto name = member.first.as<std::string>();
      if (name != "case" && name != "check" && name != "finding" && name != "transport" &&
          name != "reason") {
        fail(file, member.first,
             "unknown member '" + name + "' (known: case, check, finding, transport, reason)");
      }
      if (!member.second.IsScalar()) fail(file, member.second, name + " must be text");
    }
    if (node["case"]) entry.case_id = node["case"].as<std::string>();
    if (node["check"]) entry.check_id = node["check"].as<std::string>();
    if (node["finding"]) entry.finding = node["finding"].as<std::string>();
    if (entry.case_id.empty() + entry.check_id.empty() + entry.finding.empty() != 2) {
      fail(file, node, key + ": an entry names exactly one of case, check or finding");
    }
    const auto colon = entry.check_id.find(':');
    if (!entry.check_id.empty() && colon == std::string::npos) {
      fail(file, node["check"],
           "a check is named <case id>:<check>, e.g. ping/idle:pong-while-idle");
    }
    const auto short_id = entry.check_id.substr(colon + 1);
    if (!entry.check_id.empty() && is_collateral(short_id)) {
      fail(file, node["check"],
           "\"" + short_id +
               "\" is a finding of the run, not of one case: list it once as finding: " + short_id);
    }
    if (!entry.finding.empty() && !is_collateral(entry.finding)) {
      fail(file, node["finding"],
           "\"" + entry.finding +
               "\" is no finding (findings: the handshake, transport:*, http:*, modern:* checks)");
    }
    if (node["transport"]) entry.transport = node["transport"].as<std::string>();
    if (!node["reason"] || node["reason"].as<std::string>().empty()) {
      fail(file, node,
           key + ": every entry needs a reason (what the client does, and where the evidence is)");
    }
    entry.reason = node["reason"].as<std::string>();
    entries.push_back(std::move(entry));
  }
  return entries;
}

bool applies(const BaselineEntry& entry, const CaseResult& result) {
  if (!entry.finding.empty()) return false;
  if (entry.transport && *entry.transport != result.transport) return false;
  if (!entry.check_id.empty()) {
    return std::any_of(result.checks.begin(), result.checks.end(),
                       [&](const CheckResult& c) { return c.id == entry.check_id; });
  }
  return entry.case_id == result.case_id;
}

bool known(const BaselineEntry& entry, const KnownIds& ids) {
  if (!entry.finding.empty()) return true;  // parse_baseline checked it
  if (entry.check_id.empty()) return ids.cases.count(entry.case_id) > 0;
  // Case ids hold no ':', so the first one ends the case part of a check id.
  const auto colon = entry.check_id.find(':');
  return ids.checks.count(entry.check_id) > 0 ||
         (ids.cases.count(entry.check_id.substr(0, colon)) > 0 &&
          is_builtin_check(entry.check_id.substr(colon + 1)));
}

void apply_to_findings(const Baseline& baseline, RunResult& run) {
  std::set<std::string> transports;
  for (const auto& result : run.cases) transports.insert(result.transport);
  for (auto& finding : run.findings) {
    for (const auto* list : {&baseline.flaky, &baseline.expected_failures}) {
      const auto entry = std::find_if(list->begin(), list->end(), [&](const BaselineEntry& e) {
        return e.finding == finding.check && (!e.transport || *e.transport == finding.transport);
      });
      if (entry == list->end() || finding.expectation != Expectation::kNone) continue;
      finding.expectation_reason = entry->reason;
      finding.expectation = list == &baseline.flaky ? Expectation::kFlaky
                            : verdict_fails(finding.verdict, run.info.strict)
                                ? Expectation::kExpectedFailure
                                : Expectation::kStale;
    }
  }
  // An expected finding that no longer occurs on a transport that ran: stale.
  for (const auto& entry : baseline.expected_failures) {
    if (entry.finding.empty()) continue;
    for (const auto& transport : transports) {
      if (entry.transport && *entry.transport != transport) continue;
      const bool occurred = std::any_of(run.findings.begin(), run.findings.end(), [&](auto& f) {
        return f.check == entry.finding && f.transport == transport;
      });
      if (occurred) continue;
      Finding gone;
      gone.check = entry.finding;
      gone.transport = transport;
      gone.level = builtin_check(entry.finding).level;
      gone.expected = std::string(builtin_expected(entry.finding));
      gone.example = "did not occur in this run";
      gone.expectation = Expectation::kStale;
      gone.expectation_reason = entry.reason;
      run.findings.push_back(std::move(gone));
    }
  }
}

}  // namespace

Baseline load_baseline(const std::filesystem::path& file) {
  const auto text = try_read_file(file);
  if (!text) throw BaselineError(file.string() + ":0: cannot read the file");
  return parse_baseline(*text, file);
}

Baseline parse_baseline(const std::string& text, const std::filesystem::path& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw BaselineError(file.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  Baseline baseline;
  baseline.file = file;
  if (root.IsNull()) return baseline;
  if (!root.IsMap()) fail(file, root, "a baseline is a map with expected_failures and flaky");
  for (const auto& member : root) {
    if (!member.first.IsScalar()) fail(file, member.first, "a key is text");
    const auto name = member.first.as<std::string>();
    if (name != "expected_failures" && name != "flaky") {
      fail(file, member.first, "unknown key '" + name + "' (known: expected_failures, flaky)");
    }
  }
  baseline.expected_failures = read_entries(file, root["expected_failures"], "expected_failures");
  baseline.flaky = read_entries(file, root["flaky"], "flaky");
  return baseline;
}

void apply_baseline(const Baseline& baseline, const KnownIds& ids, RunResult& run) {
  run.baseline_file = baseline.file.string();
  for (const auto* list : {&baseline.expected_failures, &baseline.flaky}) {
    for (const auto& entry : *list) {
      if (!known(entry, ids)) run.unknown_baseline_entries.push_back(entry.describe());
    }
  }
  for (auto& result : run.cases) {
    if (result.verdict == Verdict::Unsupported || result.verdict == Verdict::Error) continue;
    const auto flaky = std::find_if(baseline.flaky.begin(), baseline.flaky.end(),
                                    [&](const BaselineEntry& e) { return applies(e, result); });
    if (flaky != baseline.flaky.end()) {
      result.expectation = Expectation::kFlaky;
      result.expectation_reason = flaky->reason;
      continue;
    }
    std::vector<const BaselineEntry*> entries;
    for (const auto& entry : baseline.expected_failures) {
      if (applies(entry, result)) entries.push_back(&entry);
    }
    if (entries.empty()) continue;
    // A case entry covers the whole case; check entries cover the checks they name, so a
    // new failure in another check of the same case still fails the run.
    const bool whole_case = std::any_of(entries.begin(), entries.end(),
                                        [](const BaselineEntry* e) { return e->check_id.empty(); });
    std::string reasons;
    for (const auto* entry : entries) reasons += (reasons.empty() ? "" : "; ") + entry->reason;
    bool failing_uncovered = false;
    bool covered_failing = false;
    for (const auto& check : result.checks) {
      if (check.kind == CheckKind::Collateral || !verdict_fails(check.verdict, run.info.strict))
        continue;
      const bool covered = whole_case || std::any_of(entries.begin(), entries.end(), [&](auto* e) {
                             return e->check_id == check.id;
                           });
      (covered ? covered_failing : failing_uncovered) = true;
    }
    if (covered_failing && failing_uncovered) continue;  // a new failure beside the known ones
    result.expectation = covered_failing ? Expectation::kExpectedFailure : Expectation::kStale;
    result.expectation_reason = reasons;
  }
  apply_to_findings(baseline, run);
}

std::string baseline_from_run(const RunResult& run) {
  std::ostringstream out;
  out << "# Known failures, written by `mcp-ping-conformance baseline` from a run of\n"
      << "# mcp-ping-conformance " << run.info.suite_version << " (revision " << run.info.revision
      << (run.info.strict ? ", strict" : ", lenient") << "). Refine each reason: what the\n"
      << "# client does on the wire, and where the evidence is (docs/baselines.md).\n";
  YAML::Emitter yaml;
  yaml << YAML::BeginMap << YAML::Key << "expected_failures" << YAML::Value << YAML::BeginSeq;
  for (const auto& result : run.cases) {
    if (result.verdict == Verdict::Error || !verdict_fails(result.verdict, run.info.strict)) {
      continue;
    }
    for (const auto& check : result.checks) {
      if (check.kind == CheckKind::Collateral || !verdict_fails(check.verdict, run.info.strict))
        continue;
      yaml << YAML::BeginMap << YAML::Key << "check" << YAML::Value << check.id << YAML::Key
           << "transport" << YAML::Value << result.transport << YAML::Key << "reason" << YAML::Value
           << shorten(check_headline(check), 300) << YAML::EndMap;
    }
  }
  for (const auto& finding : run.findings) {
    if (!verdict_fails(finding.verdict, run.info.strict)) continue;
    yaml << YAML::BeginMap << YAML::Key << "finding" << YAML::Value << finding.check << YAML::Key
         << "transport" << YAML::Value << finding.transport << YAML::Key << "reason" << YAML::Value
         << shorten(finding.example, 300) << YAML::EndMap;
  }
  yaml << YAML::EndSeq << YAML::Key << "flaky" << YAML::Value << YAML::BeginSeq << YAML::EndSeq
       << YAML::EndMap;
  out << yaml.c_str() << "\n";
  return out.str();
}

}  // namespace mcpping
