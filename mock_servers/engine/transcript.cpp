#include "engine/transcript.hpp"

#include <cmath>
#include <stdexcept>

namespace mcpping {

std::string safe_dump(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string shorten(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit) + "... (" + std::to_string(text.size()) + " bytes)";
}

std::string format_ms(double ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", ms);
  return buf;
}

Transcript::Transcript() : start_(Clock::now()) {}

Transcript::Transcript(const std::filesystem::path& dir) : start_(Clock::now()) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  jsonl_ = std::fopen((dir / "transcript.jsonl").c_str(), "w");
  txt_ = std::fopen((dir / "transcript.txt").c_str(), "w");
  if (!jsonl_ || !txt_) {
    if (jsonl_) std::fclose(jsonl_);
    if (txt_) std::fclose(txt_);
    throw std::runtime_error("cannot create the transcript in " + dir.string());
  }
}

Transcript::~Transcript() {
  if (jsonl_) std::fclose(jsonl_);
  if (txt_) std::fclose(txt_);
}

double Transcript::ms(Clock::time_point when) const {
  return std::chrono::duration<double, std::milli>(when - start_).count();
}

void Transcript::write(Json record, const std::string& label, const std::string& text) {
  const std::lock_guard lock(mutex_);
  // Taken under the lock so that the files' timestamps never go backwards.
  const double t = std::round(now_ms() * 1000.0) / 1000.0;
  record["t"] = t;
  if (jsonl_) {
    const auto line = safe_dump(record) + "\n";
    std::fputs(line.c_str(), jsonl_);
    std::fflush(jsonl_);
  }
  if (txt_) {
    std::fprintf(txt_, "+%10.3fms  %-8s  %s\n", t, label.c_str(), text.c_str());
    std::fflush(txt_);
  }
  records_.push_back(std::move(record));
}

void Transcript::start(long pid, const std::string& scenario, const std::string& transport,
                       const std::string& revision) {
  write({{"kind", "start"},
         {"pid", pid},
         {"scenario", scenario},
         {"transport", transport},
         {"revision", revision}},
        "start", scenario + " on " + transport + ", revision " + revision);
}

void Transcript::frame(Direction dir, const std::string& text, const Json* parsed,
                       std::size_t writes, Json extra) {
  Json record = std::move(extra);
  record["kind"] = "frame";
  record["dir"] = dir == Direction::ClientToServer ? "c2s" : "s2c";
  record["text"] = text;
  if (parsed) record["json"] = *parsed;
  if (writes != 1) record["writes"] = writes;
  auto shown = shorten(text, kTextPayloadLimit);
  if (writes != 1) shown += "  [" + std::to_string(writes) + " writes]";
  if (record.contains("coalesced")) {
    shown += "  [coalesced with " + std::to_string(record["coalesced"].get<std::size_t>() - 1) +
             " more]";
  }
  write(std::move(record), dir == Direction::ClientToServer ? "client>" : "server>", shown);
}

void Transcript::raw(Direction dir, const std::string& text, std::optional<std::size_t> total,
                     Json extra) {
  Json record = std::move(extra);
  record["kind"] = "raw";
  record["dir"] = dir == Direction::ClientToServer ? "c2s" : "s2c";
  record["text"] = text;
  auto shown = safe_dump(Json(shorten(text, kTextPayloadLimit)));
  if (total) {
    record["bytes"] = *total;
    shown += "  [" + std::to_string(*total) + " bytes in all]";
  }
  if (record.contains("writes")) shown += "  [" + safe_dump(record["writes"]) + " writes]";
  write(std::move(record), dir == Direction::ClientToServer ? "client?" : "server?", shown);
}

void Transcript::stderr_written(std::size_t bytes, std::size_t requested) {
  Json record{{"kind", "stderr"}, {"bytes", bytes}};
  std::string shown = std::to_string(bytes) + " bytes written to stderr";
  if (bytes != requested) {
    record["requested"] = requested;
    shown += " of " + std::to_string(requested) + " requested";
  }
  write(std::move(record), "stderr", shown);
}

void Transcript::event(const std::string& what, Json extra) {
  Json record = std::move(extra);
  record["kind"] = "event";
  record["what"] = what;
  write(std::move(record), "event", what);
}

void Transcript::check(const CheckRecord& r) {
  Json record = r.extra;
  record["kind"] = "check";
  record["check"] = r.check.id;
  record["level"] = to_string(r.check.level);
  record["spec"] = r.check.spec;
  record["verdict"] = to_string(r.verdict);
  record["expected"] = r.expected;
  record["actual"] = r.actual;
  if (!r.latency_ms.empty()) record["latency_ms"] = r.latency_ms;
  write(std::move(record), "check",
        r.check.id + " " + std::string(to_string(r.verdict)) +
            " | Expected: " + shorten(r.expected, kTextPayloadLimit) +
            " | Actual: " + shorten(r.actual, kTextPayloadLimit));
}

void Transcript::fatal(const std::string& message) {
  write({{"kind", "fatal"}, {"what", message}}, "fatal", message);
}

void Transcript::unsupported(const std::string& reason) {
  write({{"kind", "unsupported"}, {"reason", reason}}, "unsupp.", reason);
}

void Transcript::host_record(const std::string& kind, Json members, const std::string& text) {
  members["kind"] = kind;
  write(std::move(members), kind, text);
}

bool Transcript::end(const std::string& reason) {
  {
    const std::lock_guard lock(mutex_);
    if (ended_) return false;
    ended_ = true;
  }
  write({{"kind", "end"}, {"reason", reason}}, "end", reason);
  return true;
}

bool Transcript::ended() const {
  const std::lock_guard lock(mutex_);
  return ended_;
}

std::vector<Json> Transcript::records() const {
  const std::lock_guard lock(mutex_);
  return records_;
}

}  // namespace mcpping
