// JUnit XML: one <testcase> per case, classname "mcp.<transport>", name the case id.
#pragma once

#include <filesystem>
#include <string>

#include "reports/results.hpp"

namespace mcpping {

std::string render_junit(const RunResult& run);

// Writes atomically (temporary file, then rename), so a reader never sees half a report.
void write_junit(const RunResult& run, const std::filesystem::path& file);

// Text made safe for XML character data and attribute values: escapes markup characters and
// replaces characters XML 1.0 cannot carry (control characters, broken UTF-8) with U+FFFD.
std::string xml_escape(const std::string& text);

}  // namespace mcpping
