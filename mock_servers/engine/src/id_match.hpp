// How a client response is tied to a frame the server sent: by id, strictly or not.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/channel.hpp"

namespace mcpping {

using Json = nlohmann::json;

// A frame the server wrote, and when its last byte went out.
struct SentFrame {
  Json frame;
  Clock::time_point written;
  std::size_t requests_before = 0;  // client requests (not pings) that had arrived before
};

// How a response id relates to a request id: the same JSON value (Strict; a number written
// another way, 42 as 42.0, included), an integer beyond 2^53 that came back rounded
// (Rounded), the same text in another type (Loose), or not at all.
enum class IdMatch { None, Strict, Rounded, Loose };

IdMatch match_id(const Json& sent, const Json& got);

// Ids indexed so that the ids match_id() could tie to a given one are found by lookup, not by
// comparing with each: a burst of N pings and N pongs costs O(N), not O(N^2).
class IdIndex {
 public:
  void add(const Json& id, std::size_t position);
  // Positions added under an id that may match `id` (match_id() decides), ascending, each once.
  std::vector<std::size_t> candidates(const Json& id) const;

 private:
  std::unordered_map<std::string, std::vector<std::size_t>> by_key_;
};

// Whether `resp` answers `req` for expect_no_response: by id, or, for a request without a
// usable id, a response with a null or absent id or with an id no request the server sent
// carried (`all_sent`; the server's own responses do not count).
bool attributed(const SentFrame& req, const Json& resp, const std::vector<SentFrame>& all_sent);

}  // namespace mcpping
