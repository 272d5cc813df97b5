// `mcp-ping-conformance merge`: the shards of one client's run joined into one run, and
// several clients' runs into one JUnit file (docs/reports.md).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "reports/comparison.hpp"

namespace mcpping {

// Reports that cannot be merged (exit status 2).
class MergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One run per label, in the order the labels first appear. Runs sharing a label are shards of
// one client: their cases are joined (sorted by case id, then transport), their durations
// added, the earliest start kept. Throws MergeError when two shards hold the same case on the
// same transport, or ran with a different revision or strictness.
std::vector<LabelledRun> merge_shards(const std::vector<LabelledRun>& shards);

// One run holding every client's cases, for a single junit.xml. With several clients each
// case's transport becomes "<label>.<transport>", so test suites and classnames read
// "mcp.<label>.<transport>"; run properties are the first client's. Throws MergeError when the
// clients differ in strictness, which decides what the file counts as a failure.
RunResult combined_run(const std::vector<LabelledRun>& clients);

// The folder of a client's results.json in a merge's output: the label with each character
// outside [A-Za-z0-9._-] replaced by '-', prefixed with "client" when empty or starting with
// '.'.
std::string client_folder(const std::string& label);

}  // namespace mcpping
