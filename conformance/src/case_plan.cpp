#include "conformance/case_plan.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <stdexcept>

#include "core/text.hpp"

namespace mcpping {

bool glob_matches(const std::string& pattern, const std::string& id) {
  return ::fnmatch(pattern.c_str(), id.c_str(), 0) == 0;
}

bool matches_any(const std::vector<std::string>& globs, const std::string& id) {
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string& glob) { return glob_matches(glob, id); });
}

std::vector<PlannedCase> shard_of(const std::vector<PlannedCase>& cases, unsigned index,
                                  unsigned total) {
  std::vector<PlannedCase> part;
  for (std::size_t i = index - 1; i < cases.size(); i += total) part.push_back(cases[i]);
  return part;
}

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Ids a mistyped --scenario may have meant: the nearest by edit distance, and those that
// contain it.
std::vector<std::string> close_matches(const std::vector<Scenario>& catalogue,
                                       const std::string& given) {
  std::string plain = given;
  plain.erase(std::remove_if(plain.begin(), plain.end(),
                             [](char c) { return c == '*' || c == '?' || c == '[' || c == ']'; }),
              plain.end());
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const auto& scenario : catalogue) {
    const std::size_t distance = scenario.id.find(plain) != std::string::npos && !plain.empty()
                                     ? 0
                                     : edit_distance(plain, scenario.id);
    if (distance <= std::max<std::size_t>(3, plain.size() / 3)) {
      ranked.emplace_back(distance, scenario.id);
    }
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < ranked.size() && i < 5; ++i) ids.push_back(ranked[i].second);
  return ids;
}

}  // namespace

std::vector<const Scenario*> select_scenarios(const std::vector<Scenario>& scenarios,
                                              const CatalogueSelection& selection) {
  for (const auto& glob : selection.globs) {
    if (std::none_of(scenarios.begin(), scenarios.end(),
                     [&](const Scenario& scenario) { return glob_matches(glob, scenario.id); })) {
      const auto close = close_matches(scenarios, glob);
      throw std::invalid_argument("--scenario '" + glob + "' matches no case" +
                                  (close.empty() ? "; see 'mcp-ping-conformance list'"
                                                 : "; close matches: " + join(close, ", ")));
    }
  }
  std::vector<const Scenario*> selected;
  for (const auto& scenario : scenarios) {
    if ((selection.globs.empty() || matches_any(selection.globs, scenario.id)) &&
        (!selection.transport || scenario.runs_on(*selection.transport)))
      selected.push_back(&scenario);
  }
  return selected;
}

std::vector<PlannedCase> plan_cases(const std::vector<Scenario>& catalogue,
                                    const PlanRequest& request) {
  std::vector<PlannedCase> cases;
  for (const Scenario* selected : select_scenarios(catalogue, {request.globs, std::nullopt})) {
    const Scenario& scenario = *selected;
    for (const auto& transport : scenario.transports) {
      if (request.transport && *request.transport != transport) continue;
      if (std::find(request.hosted_transports.begin(), request.hosted_transports.end(),
                    transport) == request.hosted_transports.end()) {
        continue;
      }
      PlannedCase planned{&scenario, transport, std::nullopt};
      if (!scenario.applies_to(request.revision)) {
        planned.unsupported = "the case applies to revisions " + scenario.revision_from + " to " +
                              scenario.revision_until + ", not " + request.revision;
      } else if (auto absent = transport_absent_at(transport, request.revision)) {
        planned.unsupported = std::move(*absent);
      }
      cases.push_back(std::move(planned));
    }
  }
  return cases;
}

}  // namespace mcpping
