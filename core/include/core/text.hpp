// Small text helpers every part of the suite shares.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mcpping {

using Json = nlohmann::json;

// Compact JSON that never throws on invalid UTF-8 (client bytes are untrusted).
std::string safe_dump(const Json& value);

// The first bytes of `text`, at most `limit` of them, never cut inside a UTF-8 sequence.
std::string utf8_prefix(const std::string& text, std::size_t limit);

// `text` cut to at most `limit` bytes (never inside a UTF-8 sequence) plus a note of its full
// size: "abc... (1048576 bytes)". Unchanged when it fits.
std::string shorten(const std::string& text, std::size_t limit);

// "12.3" style millisecond text.
std::string format_ms(double ms);

// One word for a POSIX shell: in single quotes, a quote inside as '\''. Never split, never
// expanded.
std::string shell_quote(const std::string& word);

// The items with `separator` between them.
std::string join(const std::vector<std::string>& items, std::string_view separator);

}  // namespace mcpping
