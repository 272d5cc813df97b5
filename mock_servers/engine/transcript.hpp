// The evidence a mock server writes: transcript.jsonl (one JSON object per line) and
// transcript.txt (the same, readable). Both are flushed per record, so a killed server
// loses nothing. Thread-safe. Format: docs/scenario-format.md, "Transcript".
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/scenario.hpp"
#include "engine/verdict.hpp"

namespace mcpping {

using Clock = std::chrono::steady_clock;

// One check result, self-describing: the runner needs no lookup to judge or report it.
struct CheckRecord {
  CheckDef check;
  Verdict verdict = Verdict::Pass;
  std::string expected;
  std::string actual;
  std::vector<double> latency_ms;  // pongs only; empty otherwise
  Json extra = Json::object();     // further members, e.g. "step" or "latency" summary
};

enum class Direction { ClientToServer, ServerToClient };

class Transcript {
 public:
  // Payload text longer than this is shortened in transcript.txt (never in the .jsonl).
  static constexpr std::size_t kTextPayloadLimit = 300;

  // Writes into `dir` (created if missing). Throws std::runtime_error when it cannot.
  explicit Transcript(const std::filesystem::path& dir);
  // Keeps records in memory only.
  Transcript();
  ~Transcript();
  Transcript(const Transcript&) = delete;
  Transcript& operator=(const Transcript&) = delete;

  Clock::time_point start_time() const { return start_; }
  // Milliseconds since start, monotonic.
  double ms(Clock::time_point when) const;
  double now_ms() const { return ms(Clock::now()); }

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
  void check(const CheckRecord& record);
  void fatal(const std::string& message);
  // The case cannot be judged on this client (an optional feature it does not use): the
  // runner reports it UNSUPPORTED.
  void unsupported(const std::string& reason);
  // A host's own record (e.g. `http`, `sse`): `members` plus `kind`, shown as `text`.
  void host_record(const std::string& kind, Json members, const std::string& text);
  // Records `end` once; later calls are ignored and return false.
  bool end(const std::string& reason);

  bool ended() const;
  // Every record so far, in order.
  std::vector<Json> records() const;

 private:
  void write(Json record, const std::string& label, const std::string& text);

  Clock::time_point start_;
  mutable std::mutex mutex_;
  std::FILE* jsonl_ = nullptr;
  std::FILE* txt_ = nullptr;
  std::vector<Json> records_;
  bool ended_ = false;
};

// Compact JSON that never throws on invalid UTF-8 (client bytes are untrusted).
std::string safe_dump(const Json& value);

// Shortens `text` to `limit` bytes plus a note of the full size.
std::string shorten(const std::string& text, std::size_t limit);

// "12.3" style millisecond text.
std::string format_ms(double ms);

}  // namespace mcpping
