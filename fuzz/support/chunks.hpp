// Splits a fuzz input into a byte stream and the chunks to feed it in, so that a target can
// check that an incremental parser gives the same result whatever the chunking.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mcpping::fuzz {

struct ChunkedInput {
  std::string stream;                    // the bytes a parser reads
  std::vector<std::string_view> chunks;  // `stream` cut where the input says (some empty)
};

// The input's last bytes choose up to 15 cut positions (FuzzedDataProvider takes integers
// from the end); the rest is the stream. Cuts may coincide, which gives empty chunks: a
// parser must accept a read of nothing.
inline ChunkedInput chunked_input(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto cut_count = in.ConsumeIntegralInRange<std::size_t>(0, 15);
  std::vector<std::uint16_t> raw_cuts;
  for (std::size_t i = 0; i < cut_count; ++i)
    raw_cuts.push_back(in.ConsumeIntegral<std::uint16_t>());
  ChunkedInput out{in.ConsumeRemainingBytesAsString(), {}};
  std::vector<std::size_t> cuts;
  for (const auto raw : raw_cuts) cuts.push_back(raw % (out.stream.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  const std::string_view all = out.stream;
  std::size_t from = 0;
  for (const auto cut : cuts) {
    out.chunks.push_back(all.substr(from, cut - from));
    from = cut;
  }
  out.chunks.push_back(all.substr(from));
  return out;
}

// The stream one byte at a time: the finest chunking there is.
inline std::vector<std::string_view> byte_chunks(std::string_view stream) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < stream.size(); ++i) out.push_back(stream.substr(i, 1));
  return out;
}

}  // namespace mcpping::fuzz
