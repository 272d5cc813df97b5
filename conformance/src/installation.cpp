#include "conformance/installation.hpp"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace mcpping {

namespace fs = std::filesystem;

fs::path executable_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot read /proc/self/exe: " + ec.message());
  return self.parent_path();
}

fs::path find_fixtures_dir(const std::optional<fs::path>& given) {
  std::vector<fs::path> candidates;
  if (given) {
    candidates.push_back(*given);
  } else {
    if (const char* env = std::getenv("MCP_PING_CONFORMANCE_FIXTURES"); env && *env) {
      candidates.emplace_back(env);
    }
    candidates.push_back(executable_dir() / ".." / "share" / "mcp-ping-conformance" / "fixtures");
    candidates.emplace_back(MCP_PING_SOURCE_FIXTURES_DIR);
  }
  std::string looked;
  for (const auto& dir : candidates) {
    if (fs::is_regular_file(dir / "defaults.json") && fs::is_directory(dir / "scenarios")) {
      return fs::weakly_canonical(dir);
    }
    looked += "\n  " + dir.string();
  }
  throw std::runtime_error("no fixtures folder (defaults.json and scenarios/) found; looked in:" +
                           looked);
}

fs::path find_sibling_executable(const std::string& name) {
  fs::path path = executable_dir() / name;
  if (::access(path.c_str(), X_OK) != 0) {
    throw std::runtime_error("the suite is incomplete: " + path.string() + " is missing");
  }
  return path;
}

}  // namespace mcpping
