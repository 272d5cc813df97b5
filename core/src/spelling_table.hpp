// What the registries and the name tables of enumerations share: a table of rows in the order
// of the enum's enumerators, each row the value's spelling or a struct with a `spelling`.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.hpp"

namespace mcpping::spelling_table {

inline std::string_view spelling_of(std::string_view name) { return name; }

template <typename Row>
std::string_view spelling_of(const Row& row) {
  return row.spelling;
}

template <typename Enum, typename Rows>
const auto& row_of(const Rows& rows, Enum value) {
  return rows.at(static_cast<std::size_t>(value));
}

template <typename Enum, typename Rows>
std::optional<Enum> find(const Rows& rows, std::string_view spelling) {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (spelling_of(rows[i]) == spelling) return static_cast<Enum>(i);
  return std::nullopt;
}

template <typename Row>
std::vector<std::string> spellings(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const auto& row : rows) out.emplace_back(row.spelling);
  return out;
}

// The value spelled `spelling`; throws std::invalid_argument naming `what` and the known ones.
template <typename Enum, typename Row>
Enum parse(const std::vector<Row>& rows, std::string_view spelling, std::string_view what) {
  if (auto value = find<Enum>(rows, spelling)) return *value;
  throw std::invalid_argument("unknown " + std::string(what) + " \"" + std::string(spelling) +
                              "\" (known: " + join(spellings(rows), ", ") + ")");
}

}  // namespace mcpping::spelling_table
