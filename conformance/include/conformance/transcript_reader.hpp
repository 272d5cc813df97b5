// Reads what the mock server recorded for one case (docs/scenario-format.md, "Transcript").
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mcpping {

struct TranscriptRecords {
  bool present = false;              // the file exists: the client started the mock server
  bool ended = false;                // an "end" record: the mock server finished on its own terms
  std::optional<std::string> fatal;  // the mock server's own failure (an ERROR, not the client's)
  std::optional<std::string> unsupported;  // the case needs what the client MAY lack
  std::vector<nlohmann::json> checks;      // "check" records, in order
  std::vector<nlohmann::json> records;     // every record
};

// A missing file gives present=false. A torn last line (the server was killed mid-write) is
// skipped.
TranscriptRecords read_transcript(const std::filesystem::path& jsonl);

// Lines of transcript.txt around time `at_ms`: up to `before` lines at or before it and
// `after` lines after it. Without a time, the last `before` lines.
std::vector<std::string> transcript_excerpt(const std::filesystem::path& txt,
                                            std::optional<double> at_ms, std::size_t before,
                                            std::size_t after);

}  // namespace mcpping
