#include "conformance/catalogue_json.hpp"

#include <algorithm>
#include <iterator>

#include "conformance/case_plan.hpp"
#include "core/check.hpp"
#include "core/check_registry.hpp"

namespace mcpping {

namespace {

using OrderedJson = nlohmann::ordered_json;

// The scenario's transports the check applies to, in the scenario's order.
std::vector<std::string> check_transports(const Scenario& scenario, const CheckDef& check) {
  std::vector<std::string> transports;
  std::copy_if(scenario.transports.begin(), scenario.transports.end(),
               std::back_inserter(transports),
               [&](const std::string& transport) { return check.applies_to(transport); });
  return transports;
}

OrderedJson check_json(const Scenario& scenario, const CheckDef& check, const char* kind,
                       const SpecReferences* refs) {
  OrderedJson out = {{"id", check.id},
                     {"kind", kind},
                     {"level", to_string(check.level)},
                     {"about", to_string(check.kind)},
                     {"premise", check.premise},
                     {"implicit", is_reserved_check_id(check.id)},
                     {"transports", check_transports(scenario, check)},
                     {"spec", check.spec}};
  if (refs) out["revisions"] = applicable_revisions(check, *refs);
  return out;
}

OrderedJson builtin_checks_json(const SpecReferences* refs) {
  OrderedJson out = OrderedJson::array();
  for (const auto& b : builtin_checks()) {
    const auto check = builtin_check(b.id);
    OrderedJson entry = {{"id", check.id},
                         {"level", to_string(check.level)},
                         {"about", to_string(check.kind)},
                         {"premise", check.premise},
                         {"spec", check.spec}};
    if (refs) entry["revisions"] = applicable_revisions(check, *refs);
    entry["expected"] = b.expected;
    out.push_back(std::move(entry));
  }
  return out;
}

OrderedJson case_json(const Scenario& scenario, const SpecReferences* refs) {
  OrderedJson checks = OrderedJson::array();
  for (const auto& check : scenario.script_checks)
    checks.push_back(check_json(scenario, check, "script", refs));
  for (const auto& driver_check : scenario.driver_checks) {
    checks.push_back(check_json(scenario, driver_check.check, "driver", refs));
    checks.back()["step"] = driver_check.step;
  }
  return {{"id", scenario.id},
          {"area", scenario.id.substr(0, scenario.id.find('/'))},
          {"title", scenario.title},
          {"transports", scenario.transports},
          {"not_on", scenario.not_on},
          {"revisions", {{"from", scenario.revision_from}, {"until", scenario.revision_until}}},
          {"exclusive", scenario.exclusive},
          {"deadline_kill", to_string(scenario.deadline_kill)},
          {"level", to_string(highest_level(scenario))},
          {"checks", std::move(checks)}};
}

}  // namespace

Level more_demanding(Level a, Level b) {
  constexpr int kRanks[] = {3, 2, 0, 1};  // Must, Should, Info, May: Level's enumerators
  return kRanks[static_cast<std::size_t>(b)] > kRanks[static_cast<std::size_t>(a)] ? b : a;
}

Level highest_level(const Scenario& scenario) {
  Level highest = Level::Info;
  for (const auto& check : scenario.script_checks) {
    if (!is_reserved_check_id(check.id)) highest = more_demanding(highest, check.level);
  }
  for (const auto& driver_check : scenario.driver_checks)
    highest = more_demanding(highest, driver_check.check.level);
  return highest;
}

nlohmann::ordered_json catalogue_json(const std::vector<Scenario>& scenarios,
                                      const CatalogueSelection& selection,
                                      const SpecReferences* refs) {
  OrderedJson cases = OrderedJson::array();
  for (const Scenario* scenario : select_scenarios(scenarios, selection)) {
    cases.push_back(case_json(*scenario, refs));
  }
  return {{"format", kCatalogueJsonFormat},
          {"transports", known_transports()},
          {"revisions", known_revisions()},
          {"builtin_checks", builtin_checks_json(refs)},
          {"cases", std::move(cases)}};
}

}  // namespace mcpping
