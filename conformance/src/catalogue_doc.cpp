#include "conformance/catalogue_doc.hpp"

#include <map>
#include <sstream>
#include <utility>

#include "core/check_registry.hpp"
#include "core/text.hpp"
#include "reports/markdown.hpp"

namespace mcpping {

namespace {

std::string spec_link(const std::string& key, const SpecReferences& refs) {
  const auto it = refs.find(key);
  if (it == refs.end()) return "`" + key + "`";
  return "[\u201c" + markdown_cell(it->second.text) + "\u201d](" + it->second.url + ") (" +
         markdown_cell(it->second.revision) + ")";
}

// The sentences that bind the client (docs/verdicts.md, "Whom a sentence binds"), then the
// others a check cites for context: what the server must do, what a term means.
std::pair<std::string, std::string> spec_cells(const std::vector<std::string>& keys,
                                               const SpecReferences& refs) {
  std::string binding, context;
  for (const auto& key : keys) {
    const auto it = refs.find(key);
    const bool binds = it != refs.end() && binds_client(it->second.binds);
    auto& cell = binds ? binding : context;
    if (!cell.empty()) cell += "<br>";
    cell += spec_link(key, refs);
    if (!binds && it != refs.end()) cell += " [" + std::string(to_string(it->second.binds)) + "]";
  }
  return {binding.empty() ? "(none: a record)" : binding, context};
}

// A row of a check table; `kind` is the kind column's text (built-in checks), empty for none.
std::string check_row(const std::string& name, const CheckDef& check, const SpecReferences& refs,
                      const std::string& kind = "") {
  const auto [binding, context] = spec_cells(check.spec, refs);
  const auto premise = check.premise.empty() ? "" : "<br>judged only when " + check.premise;
  return "| " + name + premise + " | " + (kind.empty() ? "" : kind + " | ") +
         std::string(to_string(check.level)) + " | " + binding + " | " + context + " |\n";
}

// The checks the suite records in every case, from the registry.
std::string builtin_section(const SpecReferences& refs) {
  std::string out =
      "## Built-in checks\n\nRecorded by the suite in any case where they apply "
      "(`core/src/check_registry.cpp`). Fate checks can fail a case; collateral ones are findings "
      "of the run, named once, never a case's verdict (docs/verdicts.md).\n\n"
      "| check | kind | level | binds the client | also cites |\n|---|---|---|---|---|\n";
  for (const auto& b : builtin_checks()) {
    const auto check = builtin_check(b.id);
    out += check_row("`" + check.id + "`", check, refs, std::string(to_string(check.kind)));
  }
  return out;
}

// The transport × case matrix, then one line for each gap saying why the case means nothing
// there (the fixture's "not_on").
std::string transport_matrix(const std::vector<Scenario>& scenarios) {
  std::ostringstream out;
  std::map<std::string, std::size_t> pairs;
  out << "| case |";
  for (const auto& transport : known_transports()) out << " " << transport << " |";
  out << " title |\n|---|";
  for (std::size_t i = 0; i < known_transports().size(); ++i) out << ":-:|";
  out << "---|\n";
  std::ostringstream gaps;
  for (const auto& scenario : scenarios) {
    out << "| [`" << scenario.id << "`](#" << scenario.id << ") |";
    for (const auto& transport : known_transports()) {
      const bool runs = scenario.runs_on(transport);
      if (runs) ++pairs[transport];
      out << (runs ? " \u2713 |" : " \u2013 |");
      if (const auto it = scenario.not_on.find(transport); !runs && it != scenario.not_on.end())
        gaps << "- `" << scenario.id << "` on " << transport << ": " << markdown_cell(it->second)
             << "\n";
    }
    out << " " << markdown_cell(scenario.title) << " |\n";
  }
  std::size_t total = 0;
  out << "| " << scenarios.size() << " cases |";
  for (const auto& transport : known_transports()) {
    out << " " << pairs[transport] << " |";
    total += pairs[transport];
  }
  out << " " << total << " case \u00d7 transport pairs |\n";
  if (!gaps.str().empty()) out << "\nWhere a case does not run, and why:\n\n" << gaps.str();
  return out.str();
}

}  // namespace

std::string catalogue_markdown(const std::vector<Scenario>& scenarios, const SpecReferences& refs) {
  std::ostringstream out;
  out << "# Scenario catalogue\n\n"
         "Generated from `fixtures/` by `mcp-ping-conformance list --markdown`; a test fails when "
         "this file and the fixtures disagree. Each case lists the checks it makes, their level "
         "(docs/verdicts.md), the sentence that binds the client with the revisions it is in, and "
         "the other sentences it cites for context (what the server does, what a term means). "
         "Every case also has the checks "
         "`driver:exit`, and where they apply `driver:completed` and `transport:*` "
         "(docs/verdicts.md).\n\n";
  out << transport_matrix(scenarios) << "\n" << builtin_section(refs);
  // Sorted by id (load_catalogue), the cases of an area come together.
  std::string area;
  for (const auto& scenario : scenarios) {
    if (scenario.id.substr(0, scenario.id.find('/')) != area) {
      area = scenario.id.substr(0, scenario.id.find('/'));
      out << "\n## " << area << "\n";
    }
    out << "\n### <a id=\"" << scenario.id << "\"></a>`" << scenario.id << "`: " << scenario.title
        << "\n\n"
        << scenario.description << "\n\n"
        << "- Catches: " << scenario.catches << "\n"
        << "- Transports: " << join(scenario.transports, ", ") << "\n";
    for (const auto& [transport, why] : scenario.not_on)
      out << "- Not on " << transport << ": " << why << "\n";
    out << "- Revisions: " << scenario.revision_from << " to " << scenario.revision_until << "\n\n"
        << "| check | level | binds the client | also cites |\n|---|---|---|---|\n";
    for (const auto& check : scenario.script_checks) {
      out << check_row(
          "`" + scenario.id + ":" + check.id + "`" +
              (check.transports.empty() ? "" : " (" + join(check.transports, ", ") + " only)"),
          check, refs);
    }
    for (const auto& driver_check : scenario.driver_checks) {
      out << check_row("`" + scenario.id + ":" + driver_check.check.id + "` (driver step " +
                           std::to_string(driver_check.step) + ")",
                       driver_check.check, refs);
    }
  }
  return out.str();
}

}  // namespace mcpping
