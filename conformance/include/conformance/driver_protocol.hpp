// The driver contract v1 (docs/driver-contract.md): what the suite hands a driver, and how it
// reads what the driver prints.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mcpping {

inline constexpr int kDriverUnsupportedExit = 127;
inline constexpr std::string_view kUnsupportedOp = "__unsupported__";

struct DriverInvocation {
  std::vector<std::string> argv;           // the user's argv, plus the URL for HTTP
  std::map<std::string, std::string> env;  // the MCP_CONFORMANCE_* variables
};

// server: {"command": [...]} for stdio, {"url": "..."} for HTTP (the URL is also appended to
// argv, as the official MCP conformance suite does).
DriverInvocation make_invocation(const std::vector<std::string>& driver_argv,
                                 const std::string& case_id, const std::string& transport,
                                 const std::string& revision, const nlohmann::json& server,
                                 const nlohmann::json& steps);

struct StepLine {
  std::size_t step = 0;
  std::string op;
  bool ok = false;
  nlohmann::json line;  // the whole object as printed
};

// What the driver printed, read per the contract. A line that is not a step result is a
// driver bug: `problem` then says which line and why, quoting it.
struct DriverReport {
  std::vector<StepLine> steps;
  std::optional<std::string> problem;
  bool last_line_incomplete = false;  // output ended without a newline (a crash mid-write)
};

DriverReport parse_driver_output(const std::string& output, const nlohmann::json& steps);

}  // namespace mcpping
