// Reading JSON fixtures with errors that name the file, the JSON pointer and the reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mcpping {

using Json = nlohmann::json;

// A fixture the suite cannot use. what() reads "<file>: <json pointer>: <reason>".
class FixtureError : public std::runtime_error {
 public:
  FixtureError(std::string file, std::string pointer, std::string reason);
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_, pointer_, reason_;
};

// Parses a JSON file; a syntax error becomes a FixtureError with its line and column.
Json parse_json_file(const std::filesystem::path& file);
// The same for text already read; `file` names it in errors.
Json parse_json_text(const std::string& text, const std::string& file);

// Typed field access that throws FixtureError on the first problem.
class FixtureReader {
 public:
  explicit FixtureReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& reason) const;

  const Json& object(const Json& value, const std::string& pointer) const;
  const Json& array(const Json& value, const std::string& pointer) const;
  std::string string(const Json& value, const std::string& pointer) const;
  std::string nonempty_string(const Json& value, const std::string& pointer) const;
  // A non-negative integer of at least `min`.
  std::uint64_t count(const Json& value, const std::string& pointer, std::uint64_t min) const;
  const Json& member(const Json& object, const std::string& key, const std::string& pointer) const;
  // Fails on the first member of `object` not in `allowed`.
  void only_keys(const Json& object, const std::vector<std::string>& allowed,
                 const std::string& pointer) const;
  // "string \"abc\"", shortened: for error messages.
  static std::string describe(const Json& value);

 private:
  std::string file_;
};

}  // namespace mcpping
