#include "core/transport.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace mcpping {
namespace {

TEST(Transport, RowsFollowTheEnumerators) {
  const auto& rows = all_transports();
  for (std::size_t i = 0; i < rows.size(); ++i)
    EXPECT_EQ(rows[i].transport, static_cast<Transport>(i)) << rows[i].spelling;
  EXPECT_EQ(known_transports(), (std::vector<std::string>{"stdio", "streamable-http", "sse"}));
}

TEST(Transport, EverySpellingRoundTrips) {
  for (const auto& row : all_transports()) {
    EXPECT_EQ(to_string(row.transport), row.spelling);
    EXPECT_EQ(find_transport(row.spelling), row.transport);
    EXPECT_EQ(parse_transport(row.spelling), row.transport);
  }
}

TEST(Transport, UnknownSpellingsAreRefusedNamingTheKnownOnes) {
  for (const auto* spelling : {"http", "Stdio", "streamable_http", "legacy-sse", ""}) {
    EXPECT_FALSE(find_transport(spelling)) << spelling;
    EXPECT_THROW(is_http_transport(spelling), std::invalid_argument) << spelling;
  }
  try {
    parse_transport("http");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown transport \"http\" (known: stdio, streamable-http, sse)");
  }
}

TEST(Transport, Properties) {
  EXPECT_FALSE(is_http_transport("stdio"));
  EXPECT_TRUE(is_http_transport("streamable-http"));
  EXPECT_TRUE(is_http_transport("sse"));
  EXPECT_EQ(traits_of(Transport::StreamableHttp).display_name, "Streamable HTTP");
  EXPECT_EQ(traits_of(Transport::Sse).display_name, "legacy HTTP+SSE");
  EXPECT_EQ(traits_of(Transport::Stdio).since, Revision::V2024_11_05);
  EXPECT_EQ(traits_of(Transport::StreamableHttp).since, Revision::V2025_03_26);
  EXPECT_EQ(traits_of(Transport::Sse).since, Revision::V2024_11_05);
}

TEST(Transport, AbsentBeforeTheRevisionThatBringsIt) {
  EXPECT_EQ(transport_absent_at("streamable-http", "2024-11-05"),
            "Streamable HTTP exists from revision 2025-03-26, not in 2024-11-05");
  EXPECT_FALSE(transport_absent_at("streamable-http", "2025-03-26"));
  EXPECT_FALSE(transport_absent_at("sse", "2026-07-28"));
  EXPECT_FALSE(transport_absent_at("streamable-http", "2099-01-01"));  // unknown: not claimed
}

TEST(Transport, AStreamableHttpSessionIsNeverOlderThanTheTransport) {
  EXPECT_EQ(nearest_revision_on("streamable-http", "2024-11-05"), "2025-03-26");
  EXPECT_EQ(nearest_revision_on("streamable-http", "2025-06-18"), "2025-06-18");
  EXPECT_EQ(nearest_revision_on("stdio", "2024-11-05"), "2024-11-05");
  EXPECT_EQ(nearest_revision_on("sse", "2024-11-05"), "2024-11-05");
}

}  // namespace
}  // namespace mcpping
