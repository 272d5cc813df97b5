// The baseline YAML loader (docs/baselines.md): a file's bytes through parse_baseline().
// Oracles: a baseline is loaded or refused with a BaselineError that names the file and a
// line ("<file>:<line>: <reason>"), never another exception; every entry loaded names
// exactly one of a case or a check (a check as <case>:<check>) and has a reason.
#include <cstddef>
#include <cstdint>
#include <string>

#include "check.hpp"
#include "reports/baseline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  mcpping::Baseline baseline;
  try {
    baseline = mcpping::parse_baseline(text, "fuzz.yaml");
  } catch (const mcpping::BaselineError& e) {
    const std::string what = e.what();
    FUZZ_CHECK(what.rfind("fuzz.yaml:", 0) == 0 && what.find(": ", 10) != std::string::npos, what);
    return 0;
  }
  for (const auto* list : {&baseline.expected_failures, &baseline.flaky}) {
    for (const auto& entry : *list) {
      FUZZ_CHECK(entry.case_id.empty() != entry.check_id.empty(), entry.describe());
      FUZZ_CHECK(entry.check_id.empty() || entry.check_id.find(':') != std::string::npos,
                 entry.describe());
      FUZZ_CHECK(!entry.reason.empty() && entry.line > 0, entry.describe());
    }
  }
  return 0;
}
