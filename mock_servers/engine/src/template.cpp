#include "template.hpp"

namespace mcpping {

namespace {

Json lookup(const std::string& ref, const Captures& captures, std::optional<std::size_t> index) {
  if (ref == "i" && index) return Json(*index);
  if (auto value = resolve_ref(ref, captures)) return *value;
  throw TemplateError("${" + ref + "}: " +
                      (captures.count(ref_root(ref))
                           ? "no such member in the captured message"
                           : "nothing captured under \"" + ref_root(ref) + "\""));
}

}  // namespace

std::optional<ValueProblem> check_template(const Json& tmpl) {
  if (tmpl.is_object() && tmpl.size() == 1 && tmpl.begin().key().rfind('$', 0) == 0) {
    const auto& key = tmpl.begin().key();
    if (key != "$text") {
      return ValueProblem{"", "unknown template operator \"" + key + "\" (templates know $text)"};
    }
    if (!tmpl.begin().value().is_string()) {
      return ValueProblem{"/$text", "$text takes a reference like \"call.id\""};
    }
    return std::nullopt;
  }
  if (!tmpl.is_structured()) return std::nullopt;
  // An array's items() are keyed by their index.
  for (const auto& [key, sub] : tmpl.items()) {
    if (auto problem = check_template(sub)) {
      problem->pointer = "/" + key + problem->pointer;
      return problem;
    }
  }
  return std::nullopt;
}

Json instantiate(const Json& tmpl, const Captures& captures, std::optional<std::size_t> index) {
  if (tmpl.is_string()) {
    const auto& text = tmpl.get_ref<const std::string&>();
    if (auto ref = whole_ref(text)) return lookup(*ref, captures, index);
    if (text.find("${") == std::string::npos) return tmpl;
    return replace_refs(text, [&](std::string_view ref) {
      return value_text(lookup(std::string(ref), captures, index));
    });
  }
  // {"$text": "name.path"}: the captured value's text as a string ("1" for 1), for ids that
  // must equal a captured one in value but not in type.
  if (tmpl.is_object() && tmpl.size() == 1 && tmpl.contains("$text") && tmpl["$text"].is_string())
    return value_text(lookup(tmpl["$text"].get<std::string>(), captures, index));
  if (!tmpl.is_structured()) return tmpl;
  Json out = tmpl;
  for (auto& sub : out) sub = instantiate(sub, captures, index);
  return out;
}

}  // namespace mcpping
