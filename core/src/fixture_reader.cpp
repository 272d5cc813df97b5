#include "core/fixture_reader.hpp"

#include <algorithm>

#include "core/files.hpp"
#include "core/pattern.hpp"
#include "core/text.hpp"

namespace mcpping {

FixtureError::FixtureError(std::string file, std::string pointer, std::string reason)
    : std::runtime_error(file + ": " + pointer + ": " + reason),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      reason_(std::move(reason)) {}

Json parse_json_file(const std::filesystem::path& file) {
  const auto text = try_read_file(file);
  if (!text) throw FixtureError(file.string(), "", "cannot read the file");
  return parse_json_text(*text, file.string());
}

Json parse_json_text(const std::string& text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // e.byte counts from 1: the text before the error is its first e.byte - 1 bytes.
    const auto before = text.substr(0, e.byte > 0 ? e.byte - 1 : 0);
    const auto line = 1 + std::count(before.begin(), before.end(), '\n');
    const auto column = before.size() - (before.rfind('\n') + 1) + 1;  // npos + 1 is 0
    std::string message = e.what();
    const auto at = message.find("syntax error");
    if (at != std::string::npos) message = message.substr(at);
    throw FixtureError(file, "",
                       "invalid JSON at line " + std::to_string(line) + ", column " +
                           std::to_string(column) + ": " + message);
  }
}

void FixtureReader::fail(const std::string& pointer, const std::string& reason) const {
  throw FixtureError(file_, pointer, reason);
}

const Json& FixtureReader::object(const Json& value, const std::string& pointer) const {
  if (!value.is_object()) fail(pointer, "must be an object, got " + describe(value));
  return value;
}

const Json& FixtureReader::array(const Json& value, const std::string& pointer) const {
  if (!value.is_array()) fail(pointer, "must be an array, got " + describe(value));
  return value;
}

std::string FixtureReader::string(const Json& value, const std::string& pointer) const {
  if (!value.is_string()) fail(pointer, "must be a string, got " + describe(value));
  return value.get<std::string>();
}

std::string FixtureReader::nonempty_string(const Json& value, const std::string& pointer) const {
  auto text = string(value, pointer);
  if (text.empty()) fail(pointer, "must not be empty");
  return text;
}

std::uint64_t FixtureReader::count(const Json& value, const std::string& pointer,
                                   std::uint64_t min) const {
  if (!value.is_number_integer() ||
      (!value.is_number_unsigned() && value.get<std::int64_t>() < 0) ||
      value.get<std::uint64_t>() < min) {
    fail(pointer, "must be an integer >= " + std::to_string(min) + ", got " + describe(value));
  }
  return value.get<std::uint64_t>();
}

const Json& FixtureReader::member(const Json& object, const std::string& key,
                                  const std::string& pointer) const {
  const auto it = object.find(key);
  if (it == object.end()) fail(pointer + "/" + key, "required");
  return *it;
}

void FixtureReader::only_keys(const Json& object, const std::vector<std::string>& allowed,
                              const std::string& pointer) const {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      fail(pointer + "/" + key,
           "unknown field \"" + key + "\" (known: " + join(allowed, ", ") + ")");
    }
  }
}

std::string FixtureReader::describe(const Json& value) {
  auto text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return std::string(to_string(json_kind(value))) + " " + text;
}

}  // namespace mcpping
