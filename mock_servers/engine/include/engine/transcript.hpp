// Writes the evidence of one case: transcript.jsonl (one JSON object per line) and
// transcript.txt (the same, readable), in the model of core/transcript_model.hpp. Both are flushed
// per record, so a killed server loses nothing. Thread-safe. Format: docs/scenario-format.md,
// "Transcript".
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "core/text.hpp"
#include "core/transcript_model.hpp"

namespace mcpping {

using Clock = std::chrono::steady_clock;

enum class Direction { ClientToServer, ServerToClient };

class Transcript {
 public:
  // Writes into `dir` (created if missing). Throws std::runtime_error when it cannot.
  explicit Transcript(const std::filesystem::path& dir);
  // Keeps records in memory only (tests).
  Transcript();
  ~Transcript();
  Transcript(const Transcript&) = delete;
  Transcript& operator=(const Transcript&) = delete;

  // Milliseconds since start, monotonic.
  double ms(Clock::time_point when) const;

  void start(long pid, const std::string& scenario, const std::string& transport,
             const std::string& revision);
  // `parsed`: the message when the text parsed; `writes`: recorded when not 1;
  // `extra`: further members.
  void frame(Direction dir, const std::string& text, const Json* parsed, std::size_t writes = 1,
             Json extra = Json::object());
  // Bytes that are not a frame. `total_bytes` when only the head of them is kept.
  void raw(Direction dir, const std::string& text, std::optional<std::size_t> total_bytes = {},
           Json extra = Json::object());
  void stderr_written(std::size_t bytes, std::size_t requested);
  void event(const std::string& what, Json extra = Json::object());
  // An observation; the runner judges it.
  void check(const CheckRecord& record);
  void fatal(const std::string& message);
  // The case cannot be judged on this client (an optional feature it does not use): the
  // runner reports it UNSUPPORTED.
  void unsupported(const std::string& reason);
  // A host's own record (e.g. `http`, `sse`): `members` plus `kind`, shown as `text`.
  void host_record(const std::string& kind, Json members, const std::string& text);
  // Records `end` once; later calls are ignored and return false.
  bool end(const std::string& reason);

  // Every record so far, in order. A transcript written to files reads them back from
  // transcript.jsonl: it keeps none in memory, so a client flooding the server with bytes
  // costs disk, not the server's memory.
  std::vector<Json> records() const;

 private:
  void write(Json record);

  Clock::time_point start_;
  mutable std::mutex mutex_;
  std::FILE* jsonl_ = nullptr;
  std::FILE* txt_ = nullptr;
  std::filesystem::path jsonl_path_;
  std::vector<Json> records_;  // in-memory transcripts only
  bool ended_ = false;
};

}  // namespace mcpping
