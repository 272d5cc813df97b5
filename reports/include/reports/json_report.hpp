// verdict.json (one case) in each case's evidence folder.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "reports/results.hpp"

namespace mcpping {

nlohmann::json to_json(const CheckResult& check);
nlohmann::json to_json(const CaseResult& result);

// Writes <evidence_dir>/verdict.json.
void write_case_verdict(const CaseResult& result);

}  // namespace mcpping
