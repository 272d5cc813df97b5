// Where the suite's own files are: fixtures and mock server executables.
#pragma once

#include <filesystem>
#include <optional>

namespace mcpping {

// The directory holding this executable (from /proc/self/exe).
std::filesystem::path executable_dir();

// The fixtures folder: --fixtures if given, else $MCP_PING_CONFORMANCE_FIXTURES, else
// <exe>/../share/mcp-ping-conformance/fixtures (installed), else the source tree's fixtures/
// (build tree). Throws std::runtime_error naming every place it looked.
std::filesystem::path find_fixtures_dir(const std::optional<std::filesystem::path>& given);

// A mock server executable next to this one (build/bin or <prefix>/bin).
std::filesystem::path find_sibling_executable(const std::string& name);

}  // namespace mcpping
