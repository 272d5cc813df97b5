#include "engine/line_splitter.hpp"

namespace mcpping {

void LineSplitter::feed(std::string_view bytes, Clock::time_point at, std::vector<Incoming>& out) {
  while (!bytes.empty()) {
    const auto newline = bytes.find('\n');
    const auto piece = bytes.substr(0, newline);
    if (discarding_) {
      discarded_ += piece.size();
    } else if (partial_.size() + piece.size() > cap_) {
      // Keep only a head for the evidence, and release the rest now.
      const auto taken = cap_ - partial_.size();
      partial_.append(piece.substr(0, taken));
      Incoming overflow{Incoming::Kind::Overflow, partial_.substr(0, kHeadBytes),
                        partial_.size() + (piece.size() - taken), at};
      discarded_ = overflow.bytes;
      out.push_back(std::move(overflow));
      std::string().swap(partial_);
      discarding_ = true;
    } else {
      partial_.append(piece);
    }
    if (newline == std::string_view::npos) break;
    if (discarding_) {
      out.push_back(Incoming{Incoming::Kind::OverflowEnd, {}, discarded_, at});
      discarding_ = false;
      discarded_ = 0;
    } else {
      out.push_back(Incoming{Incoming::Kind::Line, std::exchange(partial_, {}), 0, at});
    }
    bytes.remove_prefix(newline + 1);
  }
}

std::optional<Incoming> LineSplitter::finish(Clock::time_point at) {
  if (discarding_) {
    discarding_ = false;
    return Incoming{Incoming::Kind::OverflowEnd, {}, discarded_, at};
  }
  if (partial_.empty()) return std::nullopt;
  return Incoming{Incoming::Kind::Unterminated, std::exchange(partial_, {}), 0, at};
}

}  // namespace mcpping
