// The oracle's failure: prints what broke and aborts, which libFuzzer reports as a crash
// and saves the input as an artifact.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace mcpping::fuzz {

[[noreturn]] inline void oracle_failed(const char* condition, const std::string& detail,
                                       const char* file, int line) {
  std::fprintf(stderr, "%s:%d: oracle failed: %s\n%s\n", file, line, condition, detail.c_str());
  std::abort();
}

}  // namespace mcpping::fuzz

// FUZZ_CHECK(condition, detail): `detail` (a std::string) is built only on failure.
#define FUZZ_CHECK(condition, detail)                                                           \
  do {                                                                                          \
    if (!(condition)) ::mcpping::fuzz::oracle_failed(#condition, (detail), __FILE__, __LINE__); \
  } while (false)
