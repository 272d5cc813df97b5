#include "engine/transcript.hpp"

#include <cmath>
#include <fstream>
#include <stdexcept>

#include "core/transcript_model.hpp"

namespace mcpping {

Transcript::Transcript() : start_(Clock::now()) {}

Transcript::Transcript(const std::filesystem::path& dir) : start_(Clock::now()) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  jsonl_path_ = dir / "transcript.jsonl";
  jsonl_ = std::fopen(jsonl_path_.c_str(), "w");
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

void Transcript::write(Json record) {
  const std::lock_guard lock(mutex_);
  // Taken under the lock so that the files' timestamps never go backwards.
  record["t"] = std::round(ms(Clock::now()) * 1000.0) / 1000.0;
  const auto put = [](std::FILE* file, const std::string& line) {
    std::fputs((line + "\n").c_str(), file);
    std::fflush(file);
  };
  if (jsonl_) put(jsonl_, safe_dump(record));
  if (txt_) put(txt_, render_text_line(record));
  if (!jsonl_) records_.push_back(std::move(record));
}

void Transcript::start(long pid, const std::string& scenario, const std::string& transport,
                       const std::string& revision) {
  write({{"kind", "start"},
         {"version", kTranscriptVersion},
         {"pid", pid},
         {"scenario", scenario},
         {"transport", transport},
         {"revision", revision}});
}

void Transcript::frame(Direction dir, const std::string& text, const Json* parsed,
                       std::size_t writes, Json extra) {
  Json record = std::move(extra);
  record["kind"] = "frame";
  record["dir"] = dir == Direction::ClientToServer ? "c2s" : "s2c";
  record["text"] = text;
  if (parsed) record["json"] = *parsed;
  if (writes != 1) record["writes"] = writes;
  write(std::move(record));
}

void Transcript::raw(Direction dir, const std::string& text, std::optional<std::size_t> total,
                     Json extra) {
  Json record = std::move(extra);
  record["kind"] = "raw";
  record["dir"] = dir == Direction::ClientToServer ? "c2s" : "s2c";
  record["text"] = text;
  if (total) record["bytes"] = *total;
  write(std::move(record));
}

void Transcript::stderr_written(std::size_t bytes, std::size_t requested) {
  Json record{{"kind", "stderr"}, {"bytes", bytes}};
  if (bytes != requested) record["requested"] = requested;
  write(std::move(record));
}

void Transcript::event(const std::string& what, Json extra) {
  Json record = std::move(extra);
  record["kind"] = "event";
  record["what"] = what;
  write(std::move(record));
}

void Transcript::check(const CheckRecord& r) {
  Json record = to_json(r);
  record["kind"] = "check";
  write(std::move(record));
}

void Transcript::fatal(const std::string& message) {
  write({{"kind", "fatal"}, {"what", message}});
}

void Transcript::unsupported(const std::string& reason) {
  write({{"kind", "unsupported"}, {"reason", reason}});
}

void Transcript::host_record(const std::string& kind, Json members, const std::string& text) {
  members["kind"] = kind;
  members["summary"] = text;
  write(std::move(members));
}

bool Transcript::end(const std::string& reason) {
  {
    const std::lock_guard lock(mutex_);
    if (std::exchange(ended_, true)) return false;
  }
  write({{"kind", "end"}, {"reason", reason}});
  return true;
}

std::vector<Json> Transcript::records() const {
  const std::lock_guard lock(mutex_);
  if (!jsonl_) return records_;
  std::vector<Json> records;
  std::ifstream file(jsonl_path_);
  for (std::string line; std::getline(file, line);) records.push_back(Json::parse(line));
  return records;
}

}  // namespace mcpping
