#include "conformance/transcript_reader.hpp"

#include <cstdlib>
#include <deque>
#include <fstream>

namespace mcpping {

TranscriptRecords read_transcript(const std::filesystem::path& jsonl) {
  TranscriptRecords result;
  std::ifstream in(jsonl);
  if (!in) return result;
  result.present = true;
  std::string line;
  while (std::getline(in, line)) {
    auto record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object()) continue;
    const std::string kind = record.value("kind", "");
    if (kind == "check") result.checks.push_back(record);
    if (kind == "end") result.ended = true;
    if (kind == "fatal") result.fatal = record.value("what", record.dump());
    if (kind == "unsupported") result.unsupported = record.value("reason", "unsupported");
    result.records.push_back(std::move(record));
  }
  return result;
}

namespace {

// "+   12.410ms  client> ..." -> 12.41; lines without a time stamp (continuations) -> nullopt.
std::optional<double> line_time(const std::string& line) {
  const auto plus = line.find_first_not_of(' ');
  if (plus == std::string::npos || line[plus] != '+') return std::nullopt;
  char* end = nullptr;
  const double t = std::strtod(line.c_str() + plus + 1, &end);
  if (end == line.c_str() + plus + 1) return std::nullopt;
  return t;
}

}  // namespace

std::vector<std::string> transcript_excerpt(const std::filesystem::path& txt,
                                            std::optional<double> at_ms, std::size_t before,
                                            std::size_t after) {
  std::ifstream in(txt);
  std::deque<std::string> head;
  std::vector<std::string> tail;
  std::string line;
  bool past = false;
  while (std::getline(in, line)) {
    if (!past && at_ms) {
      const auto t = line_time(line);
      if (t && *t > *at_ms + 0.0005) past = true;
    }
    if (!past) {
      head.push_back(line);
      if (head.size() > before) head.pop_front();
    } else {
      if (tail.size() >= after) break;
      tail.push_back(line);
    }
  }
  std::vector<std::string> excerpt(head.begin(), head.end());
  excerpt.insert(excerpt.end(), tail.begin(), tail.end());
  return excerpt;
}

}  // namespace mcpping
