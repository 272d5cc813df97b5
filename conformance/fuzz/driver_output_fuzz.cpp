// parse_driver_output(): what a driver printed on stdout, read per the driver contract. The
// input's first line is the steps the driver was given (a JSON array of {"op": ...}; a
// default list when it is not one), the rest is the driver's output. Oracles: no exception;
// the step lines read are in order, one per step from the first, each with the op of its
// step; an output that stops without a newline is flagged; a problem stops the reading.
#include <cstddef>
#include <cstdint>
#include <string>

#include "check.hpp"
#include "conformance/driver_protocol.hpp"

namespace {

using nlohmann::json;

const json kDefaultSteps = json::array({{{"op", "connect"}},
                                        {{"op", "call_tool"}, {"name", "echo"}},
                                        {{"op", "ping"}},
                                        {{"op", "close"}}});

// The runner hands the parser the steps of a loaded fixture: objects with a string op.
bool valid_steps(const json& steps) {
  if (!steps.is_array()) return false;
  for (const auto& step : steps) {
    if (!step.is_object() || !step.contains("op") || !step["op"].is_string()) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto newline = input.find('\n');
  json steps = kDefaultSteps;
  std::string output = input;
  if (newline != std::string::npos) {
    auto given = json::parse(input.substr(0, newline), nullptr, false);
    if (valid_steps(given)) {
      steps = std::move(given);
      output = input.substr(newline + 1);
    }
  }
  const auto report = mcpping::parse_driver_output(output, steps);

  FUZZ_CHECK(report.steps.size() <= steps.size(), "more step lines than steps");
  for (std::size_t i = 0; i < report.steps.size(); ++i) {
    const auto& line = report.steps[i];
    FUZZ_CHECK(line.step == i,
               "step line " + std::to_string(i) + " says step " + std::to_string(line.step));
    FUZZ_CHECK(line.op == steps[i]["op"].get<std::string>(), "op " + line.op);
    FUZZ_CHECK(line.line.is_object() && line.line["ok"].get<bool>() == line.ok, line.line.dump());
  }
  const bool unterminated = !output.empty() && output.back() != '\n';
  if (!report.problem) {
    FUZZ_CHECK(report.last_line_incomplete == unterminated, "an unterminated output not flagged");
  } else {
    FUZZ_CHECK(report.problem->rfind("stdout line ", 0) == 0, *report.problem);
  }
  return 0;
}
