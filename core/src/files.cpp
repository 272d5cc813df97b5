#include "core/files.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace mcpping {

std::optional<std::string> try_read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<std::string> try_read_file_head(const std::filesystem::path& file, std::size_t max) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  // Grown as bytes arrive: `max` is a cap (megabytes for the HTML report's transcripts), and
  // a string of that size up front cost a page-faulting memset per small file.
  std::string text;
  char chunk[64 * 1024];
  while (text.size() < max && in) {
    in.read(chunk, static_cast<std::streamsize>(std::min(sizeof chunk, max - text.size())));
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  return text;
}

std::string read_file_or_empty(const std::filesystem::path& file) {
  return try_read_file(file).value_or(std::string());
}

void write_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

void write_file_atomically(const std::filesystem::path& file, const std::string& text) {
  const std::filesystem::path temporary = file.string() + ".tmp";
  write_file(temporary, text);
  std::filesystem::rename(temporary, file);
}

}  // namespace mcpping
