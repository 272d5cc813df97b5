#include "engine/id_match.hpp"

#include <cstdint>

#include "core/jsonrpc.hpp"
#include "core/pattern.hpp"

namespace mcpping {

IdMatch match_id(const Json& sent, const Json& got) {
  if (same_json(sent, got)) return IdMatch::Strict;
  constexpr std::uint64_t two53 = 1ULL << 53;
  const bool beyond = sent.is_number_unsigned() ? sent.get<std::uint64_t>() > two53
                      : sent.is_number_integer()
                          ? (sent.get<std::int64_t>() > static_cast<std::int64_t>(two53) ||
                             sent.get<std::int64_t>() < -static_cast<std::int64_t>(two53))
                          : false;
  if (beyond && got.is_number() && sent.get<double>() == got.get<double>()) {
    return IdMatch::Rounded;
  }
  const bool scalar = !sent.is_structured() && !got.is_structured() && !sent.is_null();
  if (scalar && (sent == got || value_text(sent) == value_text(got))) return IdMatch::Loose;
  return IdMatch::None;
}

bool attributed(const SentFrame& req, const Json& resp, const std::vector<SentFrame>& all_sent) {
  const bool req_has_id = req.frame.contains("id");
  const bool resp_has_id = resp.contains("id") && !resp["id"].is_null();
  if (req_has_id && resp.contains("id") && match_id(req.frame["id"], resp["id"]) != IdMatch::None) {
    return true;
  }
  if (req_has_id && is_valid_request_id(req.frame["id"])) return false;
  if (!resp_has_id) return true;
  for (const auto& other : all_sent) {
    if (other.frame.contains("id") && match_id(other.frame["id"], resp["id"]) != IdMatch::None)
      return false;
  }
  return true;
}

}  // namespace mcpping
