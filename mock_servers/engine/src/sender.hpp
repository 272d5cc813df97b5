// Sends the server's frames over the channel, records each in the transcript and keeps them,
// all of them and by label, for the steps that look for their answers.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/channel.hpp"
#include "engine/transcript.hpp"
#include "id_match.hpp"

namespace mcpping {

using Json = nlohmann::json;

class Sender {
 public:
  Sender(Channel& channel, Transcript& transcript) : channel_(channel), transcript_(transcript) {}

  // Each `send` takes the count of client requests (not pings) that arrived before it, kept
  // with each frame (SentFrame::requests_before).

  // Sends frames (recorded, kept under `label`); false when a write failed (recorded). With
  // `batch`, as one JSON-RPC batch, one array in one message; each element is kept under
  // `label` as a frame of its own, so expect_response records each.
  bool send(const std::vector<Json>& frames, const SendOptions& options, const std::string* label,
            std::size_t requests_before, bool batch = false);
  bool send_one(const Json& frame, std::size_t requests_before);

  // The frames sent under `label`, in order (none when nothing was).
  const std::vector<SentFrame>& labelled(const std::string& label) const;
  // Those of them that carry an id: the requests a client response can answer.
  std::vector<SentFrame> labelled_requests(const std::string& label) const;
  const std::vector<SentFrame>& all_sent() const { return all_sent_; }

  // Closes the server's output (stdio): the server then shuts down after the script.
  void close_output();
  bool output_closed() const { return output_closed_; }

 private:
  void keep(const Json& frame, Clock::time_point written, std::size_t requests_before,
            const std::string* label);

  Channel& channel_;
  Transcript& transcript_;
  std::map<std::string, std::vector<SentFrame>> labels_;
  std::vector<SentFrame> all_sent_;
  bool output_closed_ = false;
};

}  // namespace mcpping
