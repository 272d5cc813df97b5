#include "core/spec_reference.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/fixture_reader.hpp"

namespace mcpping {
namespace {

std::filesystem::path write_refs(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::path(::testing::TempDir()) / name;
  std::ofstream(path) << text;
  return path;
}

TEST(SpecReference, LoadsWhomEachSentenceBinds) {
  const auto path = write_refs("refs-ok.json", R"({
    "a.client": {"url": "u", "revision": "r", "text": "The client MUST x.", "binds": "client"},
    "a.def": {"url": "u", "revision": "r", "text": "-32601 Method not found", "binds": "definition"}
  })");
  const auto refs = load_spec_references(path);
  EXPECT_EQ(refs.at("a.client").binds, Binds::Client);
  EXPECT_EQ(refs.at("a.def").binds, Binds::Definition);
  EXPECT_TRUE(binds_client(Binds::Client));
  EXPECT_TRUE(binds_client(Binds::Either));
  EXPECT_TRUE(binds_client(Binds::Suite));
  EXPECT_FALSE(binds_client(Binds::Server));
  EXPECT_FALSE(binds_client(Binds::Definition));
  EXPECT_EQ(to_string(Binds::Either), "either");
}

TEST(SpecReference, ABindsThatIsMissingOrUnknownIsAFixtureError) {
  const auto missing = write_refs(
      "refs-missing.json", R"({"k": {"url": "u", "revision": "r", "text": "The client MUST x."}})");
  try {
    load_spec_references(missing);
    FAIL() << "loaded without binds";
  } catch (const FixtureError& e) {
    EXPECT_NE(std::string(e.what()).find("/k/binds"), std::string::npos) << e.what();
  }
  const auto unknown = write_refs(
      "refs-unknown.json",
      R"({"k": {"url": "u", "revision": "r", "text": "The client MUST x.", "binds": "sender"}})");
  try {
    load_spec_references(unknown);
    FAIL() << "loaded an unknown binds";
  } catch (const FixtureError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  R"(/k/binds: "sender" is not one of client, server, either, definition, suite)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mcpping
