// docs/catalogue.md's transport matrix: a mark per case and transport, the pair counts, and a
// line for each gap with the fixture's reason.
#include "conformance/catalogue_doc.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

Scenario doc_scenario(std::string id, std::vector<std::string> transports,
                      std::map<std::string, std::string> not_on) {
  Scenario s;
  s.id = std::move(id);
  s.title = "title of " + s.id;
  s.description = "what it does";
  s.catches = "what it catches";
  s.transports = std::move(transports);
  s.not_on = std::move(not_on);
  return s;
}

const std::vector<Scenario> kTwoCases = {
    doc_scenario("ping/everywhere", {"stdio", "streamable-http", "sse"}, {}),
    doc_scenario("ping/pipe-only", {"stdio"},
                 {{"streamable-http", "no pipe over HTTP"}, {"sse", "no pipe | over HTTP"}}),
};

TEST(CatalogueDoc, MatrixMarksEveryCaseAndTransport) {
  const auto doc = catalogue_markdown(kTwoCases, SpecReferences{});
  EXPECT_NE(doc.find("| case | stdio | streamable-http | sse | title |"), std::string::npos);
  EXPECT_NE(doc.find("| [`ping/everywhere`](#ping/everywhere) | \u2713 | \u2713 | \u2713 | "
                     "title of ping/everywhere |"),
            std::string::npos)
      << doc;
  EXPECT_NE(doc.find("| [`ping/pipe-only`](#ping/pipe-only) | \u2713 | \u2013 | \u2013 | "),
            std::string::npos)
      << doc;
  EXPECT_NE(doc.find("| 2 cases | 2 | 1 | 1 | 4 case \u00d7 transport pairs |"), std::string::npos)
      << doc;
}

TEST(CatalogueDoc, EveryGapSaysWhyInOneLine) {
  const auto doc = catalogue_markdown(kTwoCases, SpecReferences{});
  EXPECT_NE(doc.find("- `ping/pipe-only` on streamable-http: no pipe over HTTP\n"),
            std::string::npos)
      << doc;
  EXPECT_NE(doc.find("- `ping/pipe-only` on sse: no pipe \\| over HTTP\n"), std::string::npos)
      << doc;
  EXPECT_NE(doc.find("- Not on sse: no pipe | over HTTP\n"), std::string::npos) << doc;
  EXPECT_EQ(doc.find("`ping/everywhere` on "), std::string::npos);
}

}  // namespace
}  // namespace mcpping
