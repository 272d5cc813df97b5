#include "core/transport.hpp"

#include "spelling_table.hpp"

namespace mcpping {

// One row per transport, in the order of the enumerators.
// Adding a transport: its enumerator in transport.hpp and its row here.
const std::vector<TransportTraits>& all_transports() {
  // clang-format off
  static const std::vector<TransportTraits> rows = {
      // transport                spelling           display_name       http   since
      {Transport::Stdio,          "stdio",           "stdio",           false, Revision::V2024_11_05},
      {Transport::StreamableHttp, "streamable-http", "Streamable HTTP", true,  Revision::V2025_03_26},
      {Transport::Sse,            "sse",             "legacy HTTP+SSE", true,  Revision::V2024_11_05},
  };
  // clang-format on
  return rows;
}

const TransportTraits& traits_of(Transport value) {
  return spelling_table::row_of(all_transports(), value);
}

std::string_view to_string(Transport value) { return traits_of(value).spelling; }

std::optional<Transport> find_transport(std::string_view spelling) {
  return spelling_table::find<Transport>(all_transports(), spelling);
}

Transport parse_transport(std::string_view spelling) {
  return spelling_table::parse<Transport>(all_transports(), spelling, "transport");
}

const std::vector<std::string>& known_transports() {
  static const std::vector<std::string> spellings = spelling_table::spellings(all_transports());
  return spellings;
}

bool is_http_transport(std::string_view spelling) {
  return traits_of(parse_transport(spelling)).http;
}

std::optional<std::string> transport_absent_at(std::string_view transport,
                                               std::string_view revision) {
  const auto known = find_transport(transport);
  const auto at = find_revision(revision);
  if (!known || !at || *at >= traits_of(*known).since) return std::nullopt;
  return std::string(traits_of(*known).display_name) + " exists from revision " +
         std::string(to_string(traits_of(*known).since)) + ", not in " + std::string(revision);
}

std::string nearest_revision_on(std::string_view transport, std::string_view revision) {
  const auto index = revision_index(revision);
  if (!index || !transport_absent_at(transport, revision)) return std::string(revision);
  const auto& all = known_revisions();
  for (std::size_t i = *index + 1; i < all.size(); ++i)
    if (!transport_absent_at(transport, all[i])) return all[i];
  return std::string(revision);
}

}  // namespace mcpping
