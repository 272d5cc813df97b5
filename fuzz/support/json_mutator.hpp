// A structure-aware mutation for targets whose input is a JSON document: parse the input,
// change one node (another type, a member or element dropped, added or copied from
// elsewhere, a string's bytes mutated, a known word put in), dump it again. Inputs that do
// not parse, and a share of those that do, get libFuzzer's byte mutations instead, so the
// JSON reader itself still sees arbitrary bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace mcpping::fuzz {

namespace detail {

inline void collect_nodes(nlohmann::json& node, std::vector<nlohmann::json*>& out, int depth) {
  out.push_back(&node);
  if (depth > 64) return;
  if (node.is_structured()) {
    for (auto& child : node) collect_nodes(child, out, depth + 1);
  }
}

// The choices of one mutation, drawn from one seeded generator.
class Mutator {
 public:
  using Json = nlohmann::json;

  Mutator(unsigned int seed, const std::vector<std::string_view>& words)
      : rng_(seed), words_(words) {}

  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }

  // Changes `node` one way; `donor` is a copy of a node of the same document.
  void mutate(Json& node, const Json& donor) {
    switch (pick(7)) {
      case 0:
        node = scalar();
        break;
      case 1:
        drop(node);
        break;
      case 2:  // add a member or an element
        if (node.is_object()) {
          node[word()] = pick(2) ? donor : scalar();
        } else if (node.is_array()) {
          node.push_back(pick(2) ? donor : scalar());
        }
        break;
      case 3:
        nudge(node);
        break;
      case 4:
        node = donor;
        break;
      case 5:  // wrap it
        node = pick(2) ? Json::array({node}) : Json{{word(), node}};
        break;
      default:
        node = word();
        break;
    }
  }

 private:
  std::string word() { return std::string(words_.empty() ? "" : words_[pick(words_.size())]); }

  Json scalar() {
    switch (pick(10)) {
      case 0:
        return nullptr;
      case 1:
        return pick(2) == 0;
      case 2:
        return 0;
      case 3:
        return -1;
      case 4:
        return std::numeric_limits<std::uint64_t>::max();
      case 5:
        return std::numeric_limits<std::int64_t>::min();
      case 6:
        return 9007199254740993ULL;
      case 7:
        return 1.5;
      case 8:
        return "";
      default:
        return word();
    }
  }

  // Drops a member or an element.
  void drop(Json& node) {
    if (node.is_object() && !node.empty()) {
      auto it = node.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(pick(node.size())));
      node.erase(it);
    } else if (node.is_array() && !node.empty()) {
      node.erase(pick(node.size()));
    }
  }

  // Mutates a string's bytes, or nudges a number.
  void nudge(Json& node) {
    if (node.is_string()) {
      auto text = node.get<std::string>();
      const auto length = text.size();
      text.resize(length * 2 + 16);
      text.resize(
          LLVMFuzzerMutate(reinterpret_cast<std::uint8_t*>(text.data()), length, text.size()));
      node = text;
    } else if (node.is_number_integer()) {
      // In unsigned arithmetic, so that the ends of the range wrap instead of overflowing.
      const std::uint64_t step = pick(2) ? 1 : ~std::uint64_t{0};
      if (node.is_number_unsigned()) {
        node = node.get<std::uint64_t>() + step;
      } else {
        node =
            static_cast<std::int64_t>(static_cast<std::uint64_t>(node.get<std::int64_t>()) + step);
      }
    }
  }

  std::minstd_rand rng_;
  const std::vector<std::string_view>& words_;
};

}  // namespace detail

// `words` are the format's own names (keys, step kinds, timeout names, references), put in
// as keys and string values.
inline std::size_t mutate_json(std::uint8_t* data, std::size_t size, std::size_t max_size,
                               unsigned int seed, const std::vector<std::string_view>& words) {
  using Json = nlohmann::json;
  detail::Mutator mutator(seed, words);
  Json root =
      Json::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (root.is_discarded() || mutator.pick(5) == 0) return LLVMFuzzerMutate(data, size, max_size);

  std::vector<Json*> nodes;
  detail::collect_nodes(root, nodes, 0);
  Json& node = *nodes[mutator.pick(nodes.size())];
  const Json donor = *nodes[mutator.pick(nodes.size())];  // a copy: `node` may contain it
  mutator.mutate(node, donor);
  const auto text = root.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  // NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes for libFuzzer, not a C string
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

}  // namespace mcpping::fuzz
