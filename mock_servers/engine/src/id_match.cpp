#include "id_match.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "core/jsonrpc.hpp"
#include "core/pattern.hpp"

namespace mcpping {

namespace {

// Json's == compares an unsigned integer with a signed one through a cast to the signed type,
// so 2^64-3 "equals" -3; ids of opposite signs are never the same number.
bool same_scalar(const Json& a, const Json& b) {
  const auto negative = [](const Json& j) {
    return j.is_number_integer() && !j.is_number_unsigned() && j.get<std::int64_t>() < 0;
  };
  if ((a.is_number_unsigned() && negative(b)) || (b.is_number_unsigned() && negative(a)))
    return false;
  return a == b;
}

}  // namespace

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
  // JSON has one number type: 42 written back as 42.0 is the same value, which is what
  // JSON-RPC asks of a response's id ("It MUST be the same as the value of the id member").
  if (sent.is_number() && got.is_number() && same_scalar(sent, got)) return IdMatch::Strict;
  const bool scalar = !sent.is_structured() && !got.is_structured() && !sent.is_null();
  if (scalar && (same_scalar(sent, got) || value_text(sent) == value_text(got)))
    return IdMatch::Loose;
  return IdMatch::None;
}

namespace {

// The keys two ids share whenever match_id() ties them: the same text (strict and loose
// matches, "1" and 1) and, for numbers, the same double (1 and 1.0, an integer beyond 2^53
// and its rounded echo). Structured ids only match themselves.
std::vector<std::string> id_keys(const Json& id) {
  if (id.is_structured()) return {"j:" + id.dump()};
  std::vector<std::string> keys = {"t:" + value_text(id)};
  if (id.is_number()) {
    // -0 and 0 are one number (match_id() ties them), but "%.17g" writes them apart.
    const double value = id.get<double>() == 0 ? 0.0 : id.get<double>();
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    keys.push_back(std::string("d:") + text);
  }
  return keys;
}

}  // namespace

void IdIndex::add(const Json& id, std::size_t position) {
  for (const auto& key : id_keys(id)) {
    auto& positions = by_key_[key];
    if (positions.empty() || positions.back() != position) positions.push_back(position);
  }
}

std::vector<std::size_t> IdIndex::candidates(const Json& id) const {
  std::vector<std::size_t> out;
  for (const auto& key : id_keys(id)) {
    if (const auto it = by_key_.find(key); it != by_key_.end())
      out.insert(out.end(), it->second.begin(), it->second.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool attributed(const SentFrame& req, const Json& resp, const std::vector<SentFrame>& all_sent) {
  const bool req_has_id = req.frame.contains("id");
  const bool resp_has_id = resp.contains("id") && !resp["id"].is_null();
  if (req_has_id && resp.contains("id") && match_id(req.frame["id"], resp["id"]) != IdMatch::None) {
    return true;
  }
  if (req_has_id && is_valid_request_id(req.frame["id"])) return false;
  if (!resp_has_id) return true;
  // Only the server's requests: a client response cannot answer one of the server's own
  // responses (to the client's initialize, id 1, say).
  for (const auto& other : all_sent) {
    if (other.frame.contains("method") && other.frame.contains("id") &&
        match_id(other.frame["id"], resp["id"]) != IdMatch::None)
      return false;
  }
  return true;
}

}  // namespace mcpping
