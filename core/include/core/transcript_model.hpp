// The transcript a mock server writes for one case (transcript.jsonl, one JSON object per
// line) and its readable rendering (transcript.txt). One model for the writer (the mock
// servers) and the reader (the runner). Format: docs/scenario-format.md, "Transcript".
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.hpp"

namespace mcpping {

using Json = nlohmann::json;

// Carried by the `start` record. A reader refuses any other version.
inline constexpr int kTranscriptVersion = 3;

enum class RecordKind {
  Start,
  Frame,
  Raw,
  Stderr,
  Event,
  Check,
  Fatal,
  Unsupported,
  Http,
  Sse,
  End
};

// A check record's members (without "kind" and "t").
Json to_json(const CheckRecord& record);
// Throws std::invalid_argument naming the member when the record is not a valid check record.
CheckRecord check_record_from_json(const Json& record);

// One line of transcript.txt for a record (which must carry "kind" and "t").
std::string render_text_line(const Json& record);

// Payload text longer than this is shortened in transcript.txt (never in the .jsonl).
inline constexpr std::size_t kTextPayloadLimit = 300;

struct TranscriptRecords {
  bool present = false;              // the file exists: the client started the mock server
  bool ended = false;                // an `end` record: the mock server finished on its own terms
  bool client_spoke = false;         // the client wrote a line or made an HTTP request
  std::string end_reason;            // its reason: "eof", "deadline", "output closed", ...
  std::optional<std::string> fatal;  // the mock server's own failure (an ERROR, not the client's)
  std::optional<std::string> unsupported;  // the case needs what the client MAY lack
  // A record the reader does not understand (another version, an unknown kind, a malformed
  // check): the case is an ERROR of the suite, never the client's failure.
  std::optional<std::string> problem;
  std::optional<std::string> last_event;  // the `what` of the last `event` record
  // The protocol version the first handshake negotiated (an `event` record's `negotiated`):
  // the revision the session really ran at, which a case's revision range must include.
  std::optional<std::string> negotiated;
  // The start-up budget (ms) that passed without any contact (`startup_exceeded`).
  std::optional<double> startup_exceeded_ms;
  std::vector<CheckRecord> checks;  // in order
  // The labels the server acted under: frames it sent, faults it armed that fired.
  std::set<std::string> sent_labels;
  std::vector<Json> records;  // every record
};

// Reads transcript.jsonl. A missing file gives present=false. A torn last line (the server
// was killed mid-write) is skipped; anything else unreadable sets `problem`.
TranscriptRecords read_transcript(const std::filesystem::path& jsonl);

// transcript.txt lines around time `at_ms`: up to `before` records at or before it and
// `after` records after it. Without a time, the last `before` records.
std::vector<std::string> transcript_excerpt(const TranscriptRecords& transcript,
                                            std::optional<double> at_ms, std::size_t before,
                                            std::size_t after);

}  // namespace mcpping
