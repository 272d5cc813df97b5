#include "core/revision.hpp"

#include <filesystem>
#include <stdexcept>

#include <gtest/gtest.h>

#include "core/fixture_reader.hpp"

namespace mcpping {
namespace {

namespace fs = std::filesystem;

TEST(Revision, RowsFollowTheEnumeratorsOldestFirst) {
  const auto& rows = all_revisions();
  ASSERT_EQ(rows.size(), 5u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].revision, static_cast<Revision>(i)) << rows[i].spelling;
    if (i > 0) {
      EXPECT_LT(rows[i - 1].spelling, rows[i].spelling);
    }
  }
  EXPECT_EQ(known_revisions().front(), "2024-11-05");
  EXPECT_EQ(known_revisions().back(), "2026-07-28");
}

TEST(Revision, EverySpellingRoundTrips) {
  for (const auto& row : all_revisions()) {
    EXPECT_EQ(to_string(row.revision), row.spelling);
    EXPECT_EQ(find_revision(row.spelling), row.revision);
    EXPECT_EQ(parse_revision(row.spelling), row.revision);
    EXPECT_EQ(revision_index(row.spelling), static_cast<std::size_t>(row.revision));
  }
}

TEST(Revision, UnknownSpellingsAreRefusedNamingTheKnownOnes) {
  for (const auto* spelling : {"2025-01-01", "", " 2025-11-25", "2025-11-25 ", "latest"}) {
    EXPECT_FALSE(find_revision(spelling)) << spelling;
    EXPECT_FALSE(revision_index(spelling)) << spelling;
  }
  try {
    parse_revision("2025-01-01");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown revision \"2025-01-01\" (known: 2024-11-05, 2025-03-26, 2025-06-18, "
                 "2025-11-25, 2026-07-28)");
  }
}

TEST(Revision, PropertiesBySpelling) {
  EXPECT_TRUE(revision_has_batches("2025-03-26"));
  EXPECT_FALSE(revision_has_batches("2025-06-18"));
  EXPECT_FALSE(revision_has_batches("2099-01-01"));  // unknown: not claimed
  EXPECT_TRUE(revision_is_modern("2026-07-28"));
  EXPECT_FALSE(revision_is_modern("2025-11-25"));
  EXPECT_FALSE(revision_is_modern("2099-01-01"));
  EXPECT_EQ(latest_legacy_revision(), "2025-11-25");
  EXPECT_EQ(default_revision(), "2025-11-25");
}

// The MCP-Protocol-Version header comes with the 2025-06-18 transports page (no schema names
// it) and stays in the modern binding.
TEST(Revision, TheProtocolVersionHeaderExistsFrom20250618On) {
  for (const auto& row : all_revisions())
    EXPECT_EQ(row.protocol_version_header, row.revision >= Revision::V2025_06_18) << row.spelling;
}

// Each revision's schema (MCP_PING_TEST_SCHEMAS, docs/development.md) says what the table
// says: InitializeRequest and PingRequest, JSONRPCBatchRequest and JSONRPCBatchResponse; and
// every revision the schemas have is one the table knows.
TEST(Revision, PropertiesMatchTheSpecificationSchemas) {
  const fs::path dir = MCP_PING_TEST_SCHEMAS;
  if (dir.empty() || !fs::is_directory(dir)) GTEST_SKIP() << "no schemas folder: " << dir;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory()) {
      EXPECT_TRUE(find_revision(entry.path().filename().string())) << entry.path();
    }
  }
  for (const auto& row : all_revisions()) {
    const auto file = dir / std::string(row.spelling) / "schema.json";
    if (!fs::exists(file)) {
      ADD_FAILURE() << "no schema for " << row.spelling;
      continue;
    }
    const auto document = parse_json_file(file);
    const auto& defs = document.contains("$defs") ? document["$defs"] : document["definitions"];
    SCOPED_TRACE(std::string(row.spelling));
    EXPECT_EQ(row.initialize, defs.contains("InitializeRequest"));
    EXPECT_EQ(row.initialize, defs.contains("PingRequest"));
    EXPECT_EQ(row.batches, defs.contains("JSONRPCBatchRequest"));
    EXPECT_EQ(row.batches, defs.contains("JSONRPCBatchResponse"));
    if (document.dump().find("MCP-Protocol-Version") != std::string::npos) {
      EXPECT_TRUE(row.protocol_version_header);
    }
  }
}

}  // namespace
}  // namespace mcpping
