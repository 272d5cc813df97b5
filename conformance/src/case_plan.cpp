#include "conformance/case_plan.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <stdexcept>

namespace mcpping {

bool glob_matches(const std::string& pattern, const std::string& id) {
  return ::fnmatch(pattern.c_str(), id.c_str(), 0) == 0;
}

std::vector<PlannedCase> shard_of(const std::vector<PlannedCase>& cases, unsigned index,
                                  unsigned total) {
  std::vector<PlannedCase> part;
  for (std::size_t i = index - 1; i < cases.size(); i += total) part.push_back(cases[i]);
  return part;
}

std::vector<PlannedCase> plan_cases(const std::vector<Scenario>& catalogue,
                                    const PlanRequest& request) {
  for (const auto& glob : request.globs) {
    const bool any = std::any_of(catalogue.begin(), catalogue.end(),
                                 [&](const Scenario& s) { return glob_matches(glob, s.id); });
    if (!any) throw std::invalid_argument("--scenario '" + glob + "' matches no case");
  }
  std::vector<PlannedCase> cases;
  for (const auto& scenario : catalogue) {
    if (!request.globs.empty() &&
        std::none_of(request.globs.begin(), request.globs.end(),
                     [&](const std::string& glob) { return glob_matches(glob, scenario.id); })) {
      continue;
    }
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
