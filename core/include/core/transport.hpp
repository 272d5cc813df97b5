// The transports the suite runs cases on: one table (core/src/transport.cpp) holds each
// transport's spelling, its name for people and what it needs. No other file spells a
// transport out (style/registry-literals).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/revision.hpp"

namespace mcpping {

enum class Transport { Stdio, StreamableHttp, Sse };

struct TransportTraits {
  Transport transport;
  std::string_view spelling;      // in fixtures, on the command line, in reports
  std::string_view display_name;  // for people: "Streamable HTTP"
  // The runner starts the HTTP mock server and hands the client its URL; otherwise (stdio)
  // the client spawns the mock server.
  bool http;
  Revision since;  // the oldest revision that has it
};

// Every transport, in the order the suite runs them.
const std::vector<TransportTraits>& all_transports();
const TransportTraits& traits_of(Transport transport);
std::string_view to_string(Transport transport);
// nullopt for a spelling no transport has.
std::optional<Transport> find_transport(std::string_view spelling);
// Throws std::invalid_argument naming the known spellings for one no transport has.
Transport parse_transport(std::string_view spelling);

// The spellings, in the order of all_transports().
const std::vector<std::string>& known_transports();
// Whether the known transport `spelling` runs over HTTP (TransportTraits::http).
bool is_http_transport(std::string_view spelling);

// Why `transport` has no place in a session at `revision`, or nullopt when it has one.
// Streamable HTTP exists from 2025-03-26 on. stdio exists in every revision, and so does
// legacy HTTP+SSE: it is the 2024-11-05 transport, and from 2025-03-26 on the transports
// page keeps it in its "Backwards Compatibility" section, for clients that support older
// servers (docs/verdicts.md, "Spec precision decisions").
std::optional<std::string> transport_absent_at(std::string_view transport,
                                               std::string_view revision);

// `revision`, or when `transport` does not exist in it, the oldest later revision it exists
// in (Streamable HTTP: 2025-03-26).
std::string nearest_revision_on(std::string_view transport, std::string_view revision);

}  // namespace mcpping
