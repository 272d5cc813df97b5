#include "core/files.hpp"

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
  std::string text(max, '\0');
  in.read(text.data(), static_cast<std::streamsize>(max));
  text.resize(static_cast<std::size_t>(in.gcount()));
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

}  // namespace mcpping
