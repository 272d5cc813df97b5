#include "core/check_registry.hpp"

#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

#include "core/scenario.hpp"

namespace mcpping {
namespace {

const SpecReferences& refs() {
  static const SpecReferences loaded =
      load_spec_references(std::string(MCP_PING_SOURCE_FIXTURES_DIR) + "/spec-references.json");
  return loaded;
}

TEST(CheckRegistry, EveryBuiltinCheckIsDefinedOnceAndCitesKnownSentences) {
  std::set<std::string_view> ids;
  for (const auto& check : builtin_checks()) {
    EXPECT_TRUE(ids.insert(check.id).second) << check.id;
    EXPECT_FALSE(check.spec.empty()) << check.id;
    EXPECT_FALSE(check.expected.empty()) << check.id;
    for (const auto key : check.spec) EXPECT_TRUE(refs().count(std::string(key))) << key;
  }
}

TEST(CheckRegistry, ABuiltinCheckCarriesItsLevelKindAndTheSentenceARecordBreaks) {
  const auto header = builtin_check("http:protocol-version", "http.protocol-version-negotiated");
  EXPECT_EQ(header.level, Level::Must);
  EXPECT_EQ(header.kind, CheckKind::Collateral);
  EXPECT_EQ(header.spec, std::vector<std::string>{"http.protocol-version-negotiated"});
  EXPECT_EQ(builtin_check("driver:exit").kind, CheckKind::Fate);
  EXPECT_EQ(builtin_check("http:before-initialize").level, Level::Info);
}

TEST(CheckRegistry, UnknownIdsAndUncitedSentencesAreProgrammingErrors) {
  EXPECT_THROW(builtin_check("http:nonsense"), std::logic_error);
  EXPECT_THROW(builtin_check("handshake", "ping.respond-promptly"), std::logic_error);
}

TEST(CheckRegistry, FixturesCannotDeclareTheSuitesOwnIds) {
  for (const auto& check : builtin_checks()) EXPECT_TRUE(is_reserved_check_id(check.id));
  EXPECT_TRUE(is_reserved_check_id("wire:schema-valid"));
  EXPECT_FALSE(is_reserved_check_id("pong"));
}

TEST(CheckRegistry, OnlyAMissedMustStopsTheScript) {
  for (const auto level : {Level::Must, Level::Should, Level::May, Level::Info}) {
    CheckDef check{"c", level, {"ping.respond-promptly"}};
    EXPECT_EQ(miss_stops_script(check), level == Level::Must) << to_string(level);
  }
}

TEST(CheckRegistry, RevisionTextsCoverTheirRanges) {
  EXPECT_TRUE(revision_text_covers("2024-11-05..2025-11-25", "2025-03-26"));
  EXPECT_FALSE(revision_text_covers("2025-03-26..2025-11-25", "2024-11-05"));
  EXPECT_TRUE(revision_text_covers("2025-11-25", "2025-11-25"));
  EXPECT_FALSE(revision_text_covers("2026-07-28 (SEP-2575)", "2025-11-25"));
  EXPECT_TRUE(revision_text_covers("JSON-RPC 2.0", "2024-11-05"));
  EXPECT_TRUE(revision_text_covers("suite rule", "2026-07-28"));
  // A text naming several ranges covers each.
  const auto legacy = "2024-11-05 (HTTP with SSE); 2025-03-26..2025-11-25 keep that transport";
  EXPECT_TRUE(revision_text_covers(legacy, "2024-11-05"));
  EXPECT_TRUE(revision_text_covers(legacy, "2025-06-18"));
  EXPECT_FALSE(revision_text_covers(legacy, "2026-07-28"));
}

// Issue: `client-ping/unanswered:cancelled-after-timeout` was judged at 2024-11-05 though its
// only citation starts at 2025-03-26. Citations gate checks, not only cases.
TEST(CheckRegistry, RegressionACheckWhoseSentencesStartLaterDoesNotApply) {
  const CheckDef later{"cancelled", Level::Should, {"lifecycle.timeouts"}};
  const auto& text = refs().at("lifecycle.timeouts").revision;
  ASSERT_FALSE(revision_text_covers(text, "2024-11-05")) << text;
  const auto why = not_applicable_at(later, "2024-11-05", refs());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("2024-11-05"), std::string::npos) << *why;
  EXPECT_FALSE(not_applicable_at(later, "2025-11-25", refs()));
  // One citation that covers the revision is enough.
  const CheckDef mixed{"pong", Level::Must, {"lifecycle.timeouts", "suite.client-survives"}};
  EXPECT_FALSE(not_applicable_at(mixed, "2024-11-05", refs()));
}

TEST(CheckRegistry, ApplicableRevisionsNameTheCoveredRanges) {
  EXPECT_EQ(applicable_revisions({"c", Level::Must, {"suite.client-survives"}}, refs()),
            known_revisions().front() + ".." + known_revisions().back());
  EXPECT_EQ(applicable_revisions({"c", Level::Must, {"ping.respond-promptly"}}, refs()),
            "2024-11-05..2025-11-25");
}

}  // namespace
}  // namespace mcpping
