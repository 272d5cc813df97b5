#include "core/transcript_model.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "core/text.hpp"
#include "spelling_table.hpp"

namespace mcpping {

namespace {

constexpr std::array<std::string_view, 11> kRecordKindNames = {
    "start", "frame",       "raw",  "stderr", "event", "check",
    "fatal", "unsupported", "http", "sse",    "end"};

const Json& required(const Json& record, const char* key, bool (Json::*is_type)() const noexcept,
                     const char* type) {
  const auto it = record.find(key);
  if (it == record.end() || !((*it).*is_type)()) {
    throw std::invalid_argument(std::string("member \"") + key + "\" missing or not " + type);
  }
  return *it;
}

std::string string_member(const Json& record, const char* key) {
  return required(record, key, &Json::is_string, "a string").get<std::string>();
}

// The string member `key` read by `parse` (parse_level, ...); throws naming an unknown value.
template <typename T>
T parsed_member(const Json& record, const char* key, std::optional<T> (*parse)(std::string_view)) {
  const auto value = parse(string_member(record, key));
  if (!value)
    throw std::invalid_argument(std::string("unknown ") + key + " " + safe_dump(record[key]));
  return *value;
}

std::string text_of(const Json& record, const char* key) {
  const auto it = record.find(key);
  return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<RecordKind> parse_record_kind(std::string_view text) {
  return spelling_table::find<RecordKind>(kRecordKindNames, text);
}

// The label and text transcript.txt shows for a record.
std::pair<std::string, std::string> label_and_text(const Json& r) {
  const auto kind = parse_record_kind(text_of(r, "kind"));
  const bool c2s = text_of(r, "dir") == "c2s";
  switch (kind.value_or(RecordKind::Event)) {
    case RecordKind::Start:
      return {"start", text_of(r, "scenario") + " on " + text_of(r, "transport") + ", revision " +
                           text_of(r, "revision")};
    case RecordKind::Frame: {
      auto shown = shorten(text_of(r, "text"), kTextPayloadLimit);
      if (r.contains("writes")) shown += "  [" + safe_dump(r["writes"]) + " writes]";
      if (r.contains("coalesced") && r["coalesced"].is_number_unsigned()) {
        shown +=
            "  [coalesced with " + std::to_string(r["coalesced"].get<std::size_t>() - 1) + " more]";
      }
      return {c2s ? "client>" : "server>", shown};
    }
    case RecordKind::Raw: {
      auto shown = safe_dump(Json(shorten(text_of(r, "text"), kTextPayloadLimit)));
      if (r.contains("bytes")) shown += "  [" + safe_dump(r["bytes"]) + " bytes in all]";
      if (r.contains("writes")) shown += "  [" + safe_dump(r["writes"]) + " writes]";
      return {c2s ? "client?" : "server?", shown};
    }
    case RecordKind::Stderr: {
      auto shown = safe_dump(r.value("bytes", Json(0))) + " bytes written to stderr";
      if (r.contains("requested")) shown += " of " + safe_dump(r["requested"]) + " requested";
      return {"stderr", shown};
    }
    case RecordKind::Check:
      return {"check", text_of(r, "check") + " " + text_of(r, "outcome") +
                           " | Expected: " + shorten(text_of(r, "expected"), kTextPayloadLimit) +
                           " | Actual: " + shorten(text_of(r, "actual"), kTextPayloadLimit)};
    case RecordKind::Fatal:
      return {"fatal", text_of(r, "what")};
    case RecordKind::Unsupported:
      return {"unsupp.", text_of(r, "reason")};
    case RecordKind::Http:
    case RecordKind::Sse:
      return {text_of(r, "kind"), text_of(r, "summary")};
    case RecordKind::End:
      return {"end", text_of(r, "reason")};
    case RecordKind::Event:
      break;
  }
  return {"event", text_of(r, "what")};
}

// What an `event` record says of the run: a fault that fired under a label (a premise of its
// checks), the negotiated revision, a start-up that ran over.
void read_event(const Json& record, TranscriptRecords& result) {
  result.last_event = text_of(record, "what");
  if (record.contains("fired") && record["fired"].is_string())
    result.sent_labels.insert(record["fired"].get<std::string>());
  if (!result.negotiated && record.contains("negotiated") && record["negotiated"].is_string())
    result.negotiated = record["negotiated"].get<std::string>();
  if (record.contains("startup_exceeded") && record["startup_exceeded"].is_number())
    result.startup_exceeded_ms = record["startup_exceeded"].get<double>();
}

// Takes in one record of `kind`; sets result.problem when it cannot (`where` names its line).
void read_record(RecordKind kind, const Json& record, const std::string& where,
                 TranscriptRecords& result) {
  switch (kind) {
    case RecordKind::Start:
      if (record.value("version", 0) != kTranscriptVersion) {
        result.problem = where + "transcript version " +
                         safe_dump(record.value("version", Json())) +
                         ", this runner reads version " + std::to_string(kTranscriptVersion);
      }
      break;
    case RecordKind::Check:
      try {
        result.checks.push_back(check_record_from_json(record));
      } catch (const std::exception& e) {
        result.problem = where + "check record: " + e.what();
      }
      break;
    case RecordKind::Event:
      read_event(record, result);
      break;
    case RecordKind::Fatal:
      result.fatal = text_of(record, "what");
      break;
    case RecordKind::Unsupported:
      result.unsupported = text_of(record, "reason");
      break;
    case RecordKind::End:
      result.ended = true;
      result.end_reason = text_of(record, "reason");
      break;
    case RecordKind::Frame:
      if (record.value("dir", "") == "s2c" && record.contains("label") &&
          record["label"].is_string())
        result.sent_labels.insert(record["label"].get<std::string>());
      [[fallthrough]];
    case RecordKind::Raw:
      if (record.value("dir", "") == "c2s") result.client_spoke = true;
      break;
    case RecordKind::Http:
      result.client_spoke = true;
      break;
    default:
      break;
  }
}

}  // namespace

Json to_json(const CheckRecord& record) {
  Json out = record.details.is_object() ? record.details : Json::object();
  out["check"] = record.check.id;
  out["level"] = to_string(record.check.level);
  out["spec"] = record.check.spec;
  out["outcome"] = to_string(record.outcome);
  out["expected"] = record.expected;
  out["actual"] = record.actual;
  if (!record.latency_ms.empty()) out["latency_ms"] = record.latency_ms;
  if (record.step) out["step"] = *record.step;
  if (record.implicit) out["implicit"] = true;
  if (record.check.kind != CheckKind::Subject) out["check_kind"] = to_string(record.check.kind);
  if (record.burst) out["burst"] = to_json(*record.burst);
  return out;
}

CheckRecord check_record_from_json(const Json& record) {
  CheckRecord out;
  out.check.id = string_member(record, "check");
  out.check.level = parsed_member(record, "level", parse_level);
  for (const auto& key : required(record, "spec", &Json::is_array, "an array")) {
    if (!key.is_string()) throw std::invalid_argument("a spec key is not a string");
    out.check.spec.push_back(key.get<std::string>());
  }
  out.outcome = parsed_member(record, "outcome", parse_outcome);
  out.expected = string_member(record, "expected");
  out.actual = string_member(record, "actual");
  if (record.contains("latency_ms")) {
    for (const auto& ms : required(record, "latency_ms", &Json::is_array, "an array")) {
      if (!ms.is_number()) throw std::invalid_argument("a latency is not a number");
      out.latency_ms.push_back(ms.get<double>());
    }
  }
  if (record.contains("step")) {
    out.step =
        required(record, "step", &Json::is_number_unsigned, "a step index").get<std::size_t>();
  }
  out.implicit = record.value("implicit", false);
  if (record.contains("check_kind"))
    out.check.kind = parsed_member(record, "check_kind", parse_check_kind);
  if (record.contains("burst")) {
    out.burst = burst_from_json(record["burst"]);
    if (!out.burst) throw std::invalid_argument("a malformed burst " + safe_dump(record["burst"]));
  }
  out.t = required(record, "t", &Json::is_number, "a number").get<double>();
  for (const auto& [key, value] : record.items()) {
    static const std::array<std::string_view, 13> kTyped = {
        "kind",   "t",          "check", "level",    "spec",       "outcome", "expected",
        "actual", "latency_ms", "step",  "implicit", "check_kind", "burst"};
    if (std::find(kTyped.begin(), kTyped.end(), key) == kTyped.end()) out.details[key] = value;
  }
  return out;
}

std::string render_text_line(const Json& record) {
  const auto [label, text] = label_and_text(record);
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "+%10.3fms", record.value("t", 0.0));
  char padded[16];
  std::snprintf(padded, sizeof padded, "%-8s", label.c_str());
  return std::string(stamp) + "  " + padded + "  " + text;
}

TranscriptRecords read_transcript(const std::filesystem::path& jsonl) {
  TranscriptRecords result;
  std::ifstream in(jsonl);
  if (!in) return result;
  result.present = true;
  std::string line;
  std::size_t number = 0;
  std::optional<std::string> torn;  // an unreadable line: fine only when it is the last
  while (std::getline(in, line)) {
    ++number;
    if (torn) {
      result.problem = *torn;
      break;
    }
    auto record = Json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object()) {
      torn = "line " + std::to_string(number) + " is not a JSON object";
      continue;
    }
    const auto where = "line " + std::to_string(number) + ": ";
    const auto kind = parse_record_kind(text_of(record, "kind"));
    if (!kind) {
      result.problem = where + "unknown record kind " + safe_dump(record.value("kind", Json()));
      break;
    }
    if (!record.contains("t") || !record["t"].is_number()) {
      result.problem = where + "no time stamp";
      break;
    }
    read_record(*kind, record, where, result);
    if (result.problem) break;
    result.records.push_back(std::move(record));
  }
  return result;
}

std::vector<std::string> transcript_excerpt(const TranscriptRecords& transcript,
                                            std::optional<double> at_ms, std::size_t before,
                                            std::size_t after) {
  const auto& records = transcript.records;
  std::size_t split = records.size();  // first record after `at_ms`
  if (at_ms) {
    split = 0;
    while (split < records.size() && records[split].value("t", 0.0) <= *at_ms + 0.0005) ++split;
  }
  const std::size_t from = split > before ? split - before : 0;
  const std::size_t to = std::min(records.size(), split + (at_ms ? after : 0));
  std::vector<std::string> lines;
  for (std::size_t i = from; i < to; ++i) lines.push_back(render_text_line(records[i]));
  return lines;
}

}  // namespace mcpping
