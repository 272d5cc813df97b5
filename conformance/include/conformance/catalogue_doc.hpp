// docs/catalogue.md, generated from the fixtures so that it cannot drift from them:
// `mcp-ping-conformance list --markdown`.
#pragma once

#include <string>
#include <vector>

#include "core/scenario.hpp"

namespace mcpping {

std::string catalogue_markdown(const std::vector<Scenario>& scenarios, const SpecReferences& refs);

}  // namespace mcpping
