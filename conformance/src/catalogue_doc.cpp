#include "conformance/catalogue_doc.hpp"

#include <map>
#include <sstream>

#include "reports/markdown.hpp"

namespace mcpping {

namespace {

std::string spec_links(const std::vector<std::string>& keys, const SpecReferences& refs) {
  std::string out;
  for (const auto& key : keys) {
    const auto it = refs.find(key);
    if (!out.empty()) out += "<br>";
    if (it == refs.end()) {
      out += "`" + key + "`";
    } else {
      out += "[\u201c" + markdown_cell(it->second.text) + "\u201d](" + it->second.url + ")";
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::string catalogue_markdown(const std::vector<Scenario>& scenarios, const SpecReferences& refs) {
  std::ostringstream out;
  out << "# Scenario catalogue\n\n"
         "Generated from `fixtures/` by `mcp-ping-conformance list --markdown`; a test fails when "
         "this file and the fixtures disagree. Each case lists the checks it makes, their level "
         "(docs/verdicts.md) and the sentence each one enforces. Every case also has the checks "
         "`driver:exit`, and where they apply `driver:completed` and `transport:*` "
         "(docs/verdicts.md).\n\n";
  std::map<std::string, std::vector<const Scenario*>> by_area;
  std::vector<std::string> areas;
  for (const auto& scenario : scenarios) {
    const std::string area = scenario.id.substr(0, scenario.id.find('/'));
    if (by_area[area].empty()) areas.push_back(area);
    by_area[area].push_back(&scenario);
  }
  out << "| case | transports | title |\n|---|---|---|\n";
  for (const auto& scenario : scenarios) {
    out << "| [`" << scenario.id << "`](#" << scenario.id << ") | " << joined(scenario.transports)
        << " | " << markdown_cell(scenario.title) << " |\n";
  }
  for (const auto& area : areas) {
    out << "\n## " << area << "\n";
    for (const Scenario* scenario : by_area[area]) {
      out << "\n### <a id=\"" << scenario->id << "\"></a>`" << scenario->id
          << "`: " << scenario->title << "\n\n"
          << scenario->description << "\n\n"
          << "- Catches: " << scenario->catches << "\n"
          << "- Transports: " << joined(scenario->transports) << "\n"
          << "- Revisions: " << scenario->revision_from << " to " << scenario->revision_until
          << "\n\n"
          << "| check | level | spec |\n|---|---|---|\n";
      for (const auto& check : scenario->script_checks) {
        out << "| `" << scenario->id << ":" << check.id << "`"
            << (check.transports.empty() ? "" : " (" + joined(check.transports) + " only)") << " | "
            << to_string(check.level) << " | " << spec_links(check.spec, refs) << " |\n";
      }
      for (const auto& driver_check : scenario->driver_checks) {
        const auto& check = driver_check.check;
        out << "| `" << scenario->id << ":" << check.id << "` (driver step " << driver_check.step
            << ") | " << to_string(check.level) << " | " << spec_links(check.spec, refs) << " |\n";
      }
    }
  }
  return out.str();
}

}  // namespace mcpping
