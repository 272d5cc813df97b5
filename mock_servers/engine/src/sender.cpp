#include "sender.hpp"

#include "core/text.hpp"

namespace mcpping {

bool Sender::send_messages(const std::vector<Json>& frames, const SendOptions& options,
                           const std::string* label, std::size_t requests_before) {
  std::vector<std::string> texts;
  texts.reserve(frames.size());
  for (const auto& frame : frames) texts.push_back(safe_dump(frame));
  const auto result = channel_.send(texts, options);
  for (std::size_t i = 0; i < result.done.size(); ++i) {
    Json extra = Json::object();
    if (options.mode == WriteMode::Coalesced && frames.size() > 1)
      extra["coalesced"] = frames.size();
    if (label) extra["label"] = *label;
    if (i < result.streams.size() && !result.streams[i].empty())
      extra["stream"] = result.streams[i];
    transcript_.frame(Direction::ServerToClient, texts[i], &frames[i], result.writes[i],
                      std::move(extra));
    keep(frames[i], result.done[i], requests_before, label);
  }
  if (!result.ok) {
    transcript_.event("write failed after " + std::to_string(result.done.size()) + " of " +
                          std::to_string(frames.size()) + " frames: " + result.error,
                      {{"error", result.error}});
  }
  return result.ok;
}

bool Sender::send_batch(const std::vector<Json>& frames, const SendOptions& options,
                        const std::string* label, std::size_t requests_before) {
  const Json batch = Json(frames);
  const std::string text = safe_dump(batch);
  const auto result = channel_.send({text}, options);
  if (!result.done.empty()) {
    Json extra = {{"batch", frames.size()}};
    if (label) extra["label"] = *label;
    if (!result.streams.empty() && !result.streams.front().empty())
      extra["stream"] = result.streams.front();
    transcript_.frame(Direction::ServerToClient, text, &batch, result.writes.front(),
                      std::move(extra));
    for (const auto& frame : frames) keep(frame, result.done.front(), requests_before, label);
  }
  if (!result.ok) transcript_.event("write failed: " + result.error, {{"error", result.error}});
  return result.ok;
}

bool Sender::send_one(const Json& frame, std::size_t requests_before, const std::string& route) {
  SendOptions options;
  options.route = route;
  return send_messages({frame}, options, nullptr, requests_before);
}

void Sender::keep(const Json& frame, Clock::time_point written, std::size_t requests_before,
                  const std::string* label) {
  SentFrame sent{frame, written, requests_before};
  all_sent_.push_back(sent);
  if (label) labels_[*label].push_back(std::move(sent));
}

const std::vector<SentFrame>& Sender::labelled(const std::string& label) const {
  static const std::vector<SentFrame> none;
  const auto it = labels_.find(label);
  return it == labels_.end() ? none : it->second;
}

void Sender::close_output() {
  channel_.close_output();
  output_closed_ = true;
}

}  // namespace mcpping
