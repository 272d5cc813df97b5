#include "core/revision.hpp"

#include <algorithm>

#include "spelling_table.hpp"

namespace mcpping {

// One row per revision, oldest first, in the order of the enumerators.
// Adding a revision: its enumerator in revision.hpp and its row here.
const std::vector<RevisionTraits>& all_revisions() {
  // clang-format off
  static const std::vector<RevisionTraits> rows = {
      // revision              spelling      initialize  batches  protocol_version_header
      {Revision::V2024_11_05, "2024-11-05", true,       false,   false},
      {Revision::V2025_03_26, "2025-03-26", true,       true,    false},
      {Revision::V2025_06_18, "2025-06-18", true,       false,   true},
      {Revision::V2025_11_25, "2025-11-25", true,       false,   true},
      {Revision::V2026_07_28, "2026-07-28", false,      false,   true},
  };
  // clang-format on
  return rows;
}

const RevisionTraits& traits_of(Revision value) {
  return spelling_table::row_of(all_revisions(), value);
}

std::string_view to_string(Revision value) { return traits_of(value).spelling; }

std::optional<Revision> find_revision(std::string_view spelling) {
  return spelling_table::find<Revision>(all_revisions(), spelling);
}

Revision parse_revision(std::string_view spelling) {
  return spelling_table::parse<Revision>(all_revisions(), spelling, "revision");
}

const std::vector<std::string>& known_revisions() {
  static const std::vector<std::string> spellings = spelling_table::spellings(all_revisions());
  return spellings;
}

std::optional<std::size_t> revision_index(std::string_view revision) {
  if (const auto found = find_revision(revision)) return static_cast<std::size_t>(*found);
  return std::nullopt;
}

const std::string& default_revision() {
  return known_revisions()[static_cast<std::size_t>(Revision::V2025_11_25)];
}

bool revision_has_batches(std::string_view revision) {
  const auto found = find_revision(revision);
  return found && traits_of(*found).batches;
}

bool revision_is_modern(std::string_view revision) {
  const auto found = find_revision(revision);
  return found && !traits_of(*found).initialize;
}

const std::string& latest_legacy_revision() {
  static const std::string revision = [] {
    const auto last = std::find_if(all_revisions().rbegin(), all_revisions().rend(),
                                   [](const RevisionTraits& row) { return row.initialize; });
    return std::string(last->spelling);
  }();
  return revision;
}

}  // namespace mcpping
