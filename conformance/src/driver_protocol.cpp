#include "conformance/driver_protocol.hpp"

namespace mcpping {

using nlohmann::json;

DriverInvocation make_invocation(const std::vector<std::string>& driver_argv,
                                 const std::string& case_id, const std::string& transport,
                                 const std::string& revision, const json& server,
                                 const json& steps) {
  DriverInvocation invocation;
  invocation.argv = driver_argv;
  if (server.contains("url")) invocation.argv.push_back(server["url"].get<std::string>());
  invocation.env = {
      {"MCP_CONFORMANCE_SCENARIO", case_id},
      {"MCP_CONFORMANCE_TRANSPORT", transport},
      {"MCP_CONFORMANCE_PROTOCOL_VERSION", revision},
      {"MCP_CONFORMANCE_CONTEXT", json{{"server", server}, {"steps", steps}}.dump()},
  };
  return invocation;
}

namespace {

std::string quote(const std::string& line) {
  constexpr std::size_t kMax = 300;
  std::string shown = line.size() > kMax ? line.substr(0, kMax) + " [...]" : line;
  return json(shown).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

DriverReport parse_driver_output(const std::string& output, const json& steps) {
  DriverReport report;
  std::size_t begin = 0;
  std::size_t number = 0;
  std::size_t base = 0;
  while (begin < output.size()) {
    std::size_t end = output.find('\n', begin);
    if (end == std::string::npos) {
      // A line without its newline: the driver died while writing it. Not a step result.
      report.last_line_incomplete = true;
      break;
    }
    std::string line = output.substr(begin, end - begin);
    begin = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto fail = [&](const std::string& why) {
      report.problem = "stdout line " + std::to_string(number) + " " + why + ": " + quote(line);
      return report;
    };
    json parsed = json::parse(line, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      return fail("is not a JSON object (drivers print step results only; logs go to stderr)");
    }
    if (!parsed.contains("step") || !parsed["step"].is_number_integer() || !parsed.contains("op") ||
        !parsed["op"].is_string() || !parsed.contains("ok") || !parsed["ok"].is_boolean()) {
      return fail("lacks the members step (integer), op (string) and ok (boolean)");
    }
    // Compared as JSON numbers, and named as written: a step past INT64_MAX must not read as
    // another number in the message.
    const json& step = parsed["step"];
    // The contract counts steps from 0; a driver counting from 1 is accepted too, decided by
    // its first line.
    if (report.steps.empty() && step == json(1)) base = 1;
    const std::size_t expected = report.steps.size();
    if (step != json(expected + base)) {
      return fail("reports step " + step.dump() + " where step " + std::to_string(expected + base) +
                  " was due (one line per step, in order)");
    }
    if (expected >= steps.size()) {
      return fail("reports a step beyond the " + std::to_string(steps.size()) + " it was given");
    }
    const std::string op = parsed["op"].get<std::string>();
    if (op != steps[expected].value("op", "")) {
      return fail("reports op \"" + op + "\" for step " + std::to_string(expected) +
                  ", which is \"" + steps[expected].value("op", "") + "\"");
    }
    report.steps.push_back(StepLine{expected, op, parsed["ok"].get<bool>(), parsed});
  }
  return report;
}

}  // namespace mcpping
