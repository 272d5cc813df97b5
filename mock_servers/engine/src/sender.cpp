#include "sender.hpp"

#include "core/text.hpp"

namespace mcpping {

bool Sender::send(const std::vector<Json>& frames, const SendOptions& options,
                  const std::string* label, std::size_t requests_before, bool batch) {
  const auto messages = batch ? std::vector<Json>{Json(frames)} : frames;
  std::vector<std::string> texts;
  texts.reserve(messages.size());
  for (const auto& message : messages) texts.push_back(safe_dump(message));
  const auto result = channel_.send(texts, options);
  for (std::size_t i = 0; i < result.done.size(); ++i) {
    Json extra = Json::object();
    if (batch) extra["batch"] = frames.size();
    if (options.mode == WriteMode::Coalesced && messages.size() > 1)
      extra["coalesced"] = messages.size();
    if (label) extra["label"] = *label;
    if (i < result.streams.size() && !result.streams[i].empty())
      extra["stream"] = result.streams[i];
    transcript_.frame(Direction::ServerToClient, texts[i], &messages[i], result.writes[i],
                      std::move(extra));
    if (batch) {
      for (const auto& frame : frames) keep(frame, result.done[i], requests_before, label);
    } else {
      keep(messages[i], result.done[i], requests_before, label);
    }
  }
  if (!result.ok) {
    transcript_.event(batch ? "write failed: " + result.error
                            : "write failed after " + std::to_string(result.done.size()) + " of " +
                                  std::to_string(frames.size()) + " frames: " + result.error,
                      {{"error", result.error}});
  }
  return result.ok;
}

bool Sender::send_one(const Json& frame, std::size_t requests_before) {
  return send({frame}, SendOptions{}, nullptr, requests_before);
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

std::vector<SentFrame> Sender::labelled_requests(const std::string& label) const {
  std::vector<SentFrame> requests;
  for (const auto& sent : labelled(label))
    if (sent.frame.contains("id")) requests.push_back(sent);
  return requests;
}

void Sender::close_output() {
  channel_.close_output();
  output_closed_ = true;
}

}  // namespace mcpping
