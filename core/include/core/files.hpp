// Whole-file reading and writing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace mcpping {

// The file's bytes, or nullopt when it cannot be opened.
std::optional<std::string> try_read_file(const std::filesystem::path& file);

// At most the first `max` bytes of the file, or nullopt when it cannot be opened.
std::optional<std::string> try_read_file_head(const std::filesystem::path& file, std::size_t max);

// The file's bytes; an empty string when it cannot be opened (evidence that may be missing).
std::string read_file_or_empty(const std::filesystem::path& file);

// Replaces the file's contents. Throws std::runtime_error naming the file when it cannot.
void write_file(const std::filesystem::path& file, const std::string& text);

// The same through a temporary file renamed over `file`, so a reader never sees half of it.
void write_file_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace mcpping
