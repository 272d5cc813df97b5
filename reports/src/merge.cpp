#include "reports/merge.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace mcpping {

namespace {

std::string describe(const RunInfo& info) {
  return "revision " + info.revision + ", " + (info.strict ? "strict" : "lenient");
}

void join(LabelledRun& client, const RunResult& shard) {
  RunResult& run = client.run;
  if (shard.info.revision != run.info.revision || shard.info.strict != run.info.strict) {
    throw MergeError("the shards of '" + client.label + "' ran differently (" + describe(run.info) +
                     "; " + describe(shard.info) + ")");
  }
  std::set<std::pair<std::string, std::string>> held;
  for (const auto& result : run.cases) held.emplace(result.case_id, result.transport);
  for (const auto& result : shard.cases) {
    if (!held.emplace(result.case_id, result.transport).second) {
      throw MergeError("two shards of '" + client.label + "' both hold " + result.case_id + " on " +
                       result.transport);
    }
    run.cases.push_back(result);
  }
  run.duration_ms += shard.duration_ms;
  if (run.started_at.empty() || (!shard.started_at.empty() && shard.started_at < run.started_at)) {
    run.started_at = shard.started_at;  // ISO 8601 in UTC sorts as text
  }
  for (const auto& entry : shard.unknown_baseline_entries) {
    auto& entries = run.unknown_baseline_entries;
    if (std::find(entries.begin(), entries.end(), entry) == entries.end()) entries.push_back(entry);
  }
  if (run.baseline_file.empty()) run.baseline_file = shard.baseline_file;
  // Kept for their baseline marks; collected again over all shards' cases once joined.
  run.findings.insert(run.findings.end(), shard.findings.begin(), shard.findings.end());
}

}  // namespace

std::vector<LabelledRun> merge_shards(const std::vector<LabelledRun>& shards) {
  std::vector<LabelledRun> clients;
  for (const auto& shard : shards) {
    auto it = std::find_if(clients.begin(), clients.end(),
                           [&](const LabelledRun& c) { return c.label == shard.label; });
    if (it == clients.end()) {
      it = clients.insert(clients.end(), {shard.label, RunResult{}});
      it->run.info = shard.run.info;
    }
    join(*it, shard.run);
  }
  for (auto& client : clients) {
    std::stable_sort(client.run.cases.begin(), client.run.cases.end(),
                     [](const CaseResult& a, const CaseResult& b) {
                       return std::tie(a.case_id, a.transport) < std::tie(b.case_id, b.transport);
                     });
    const auto marked = std::move(client.run.findings);
    client.run.findings = collect_findings(client.run.cases, marked, client.run.info.strict);
  }
  return clients;
}

RunResult combined_run(const std::vector<LabelledRun>& clients) {
  RunResult combined;
  if (clients.empty()) return combined;
  combined.info = clients.front().run.info;
  combined.started_at = clients.front().run.started_at;
  const bool several = clients.size() > 1;
  if (!several) combined.baseline_file = clients.front().run.baseline_file;
  for (const auto& [label, run] : clients) {
    if (run.info.strict != combined.info.strict) {
      throw MergeError("'" + clients.front().label + "' ran " +
                       (combined.info.strict ? "strict" : "lenient") + " but '" + label +
                       "' did not; one junit.xml needs one strictness");
    }
    combined.duration_ms += run.duration_ms;
    for (CaseResult result : run.cases) {
      if (several) result.transport = label + "." + result.transport;
      combined.cases.push_back(std::move(result));
    }
    for (Finding finding : run.findings) {
      if (several) finding.transport = label + "." + finding.transport;
      combined.findings.push_back(std::move(finding));
    }
  }
  return combined;
}

std::string client_folder(const std::string& label) {
  std::string folder;
  for (const char c : label) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
    folder += keep ? c : '-';
  }
  if (folder.empty() || folder.front() == '.') folder.insert(0, "client");
  return folder;
}

}  // namespace mcpping
