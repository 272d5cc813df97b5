// Builds frames from templates (docs/scenario-format.md, "Templates"): "${name.path}" as a
// whole string becomes the captured value with its JSON type; inside a longer string it
// becomes the value's text; {"$text": "name.path"} is that text as a whole string (an id
// equal in value to a captured one but not in type). Inside a `repeat`, "${i}" is the
// repetition index.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "core/pattern.hpp"

namespace mcpping {

// A reference the captures cannot satisfy at run time (e.g. the captured message has no
// such member).
class TemplateError : public std::runtime_error {
 public:
  explicit TemplateError(const std::string& what) : std::runtime_error(what) {}
};

// Checks the special `$` objects of a template: only {"$text": "name.path"} is one; any other
// single-member object whose key starts with '$' is a typo (it would be sent literally).
// nullopt when the template is well formed.
std::optional<ValueProblem> check_template(const Json& tmpl);

// Substitutes every reference. `repeat_index` provides "${i}"; without it "${i}" is an
// ordinary capture reference.
Json instantiate(const Json& tmpl, const Captures& captures,
                 std::optional<std::size_t> repeat_index = std::nullopt);

}  // namespace mcpping
