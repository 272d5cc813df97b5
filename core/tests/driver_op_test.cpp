#include "core/driver_op.hpp"

#include <algorithm>
#include <regex>
#include <stdexcept>

#include <gtest/gtest.h>

#include "core/files.hpp"

namespace mcpping {
namespace {

TEST(DriverOp, RowsFollowTheEnumeratorsAndEveryStepCarriesItsOp) {
  const auto& rows = all_driver_ops();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].op, static_cast<DriverOp>(i)) << rows[i].spelling;
    EXPECT_NE(std::find(rows[i].keys.begin(), rows[i].keys.end(), "op"), rows[i].keys.end());
  }
}

TEST(DriverOp, EverySpellingRoundTrips) {
  for (const auto& row : all_driver_ops()) {
    EXPECT_EQ(to_string(row.op), row.spelling);
    EXPECT_EQ(find_driver_op(row.spelling), row.op);
    EXPECT_EQ(parse_driver_op(row.spelling), row.op);
  }
}

TEST(DriverOp, UnknownSpellingsAreRefusedNamingTheKnownOnes) {
  for (const auto* spelling : {"Ping", "call-tool", "__unsupported__", ""})
    EXPECT_FALSE(find_driver_op(spelling)) << spelling;
  try {
    parse_driver_op("sleep");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown op \"sleep\" (known: connect, call_tool, call_tools_concurrently, "
                 "list_tools, ping, idle, close)");
  }
}

// The ops are the rows of docs/driver-contract.md's "Steps" table, in its order.
TEST(DriverOp, TheContractDocumentsEveryOp) {
  const auto doc =
      try_read_file(std::string(MCP_PING_SOURCE_FIXTURES_DIR) + "/../docs/driver-contract.md");
  ASSERT_TRUE(doc);
  std::vector<std::string> documented;
  static const std::regex row(R"(\n\| `([a-z_]+)` \|)");
  for (auto it = std::sregex_iterator(doc->begin(), doc->end(), row); it != std::sregex_iterator();
       ++it)
    documented.push_back((*it)[1].str());
  EXPECT_EQ(documented, known_driver_ops());
}

}  // namespace
}  // namespace mcpping
