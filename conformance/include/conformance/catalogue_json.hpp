// `mcp-ping-conformance list --json`: the catalogue as one JSON document for tools, built
// from the loaded scenarios. mcp_ping_conformance_add_tests() (cmake/McpPingConformance.cmake)
// registers its ctest tests from it. The document's shape is described in docs/ctest.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/case_plan.hpp"
#include "core/scenario.hpp"

namespace mcpping {

// The version of the document's shape; raised when a field changes meaning or goes away.
constexpr int kCatalogueJsonFormat = 1;

// The more demanding of two levels: MUST > SHOULD > MAY > INFO, not Level's own order.
Level more_demanding(Level a, Level b);

// What the case is about: the most demanding level, MUST > SHOULD > MAY > INFO, among the
// checks its fixture declares (script and driver checks; not the mock server's own checks,
// such as the handshake, which every case makes); INFO when it declares none.
Level highest_level(const Scenario& scenario);

// {"format", "transports", "revisions", "builtin_checks": [{"id", "level", "about",
// "premise", "spec", "revisions", "expected"}], "cases": [{"id", "area", "title", "transports",
// "revisions": {"from", "until"}, "exclusive", "deadline_kill", "level", "checks": [{"id",
// "kind", "level", "about", "premise", "implicit", "transports", "spec", "revisions"[,
// "step"]}]}]}. "about" is subject, fate or collateral (docs/verdicts.md); "revisions" the
// ones the check's sentences cover (from `refs`; omitted without them).
// Throws std::invalid_argument as select_scenarios() does.
nlohmann::ordered_json catalogue_json(const std::vector<Scenario>& scenarios,
                                      const CatalogueSelection& selection = {},
                                      const SpecReferences* refs = nullptr);

}  // namespace mcpping
