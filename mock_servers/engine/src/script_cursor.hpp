// Where a case's script is and what it captured: its steps, the one running, the client
// messages captured by name, and which captured requests the script answered.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/pattern.hpp"
#include "engine/step.hpp"

namespace mcpping {

class ScriptCursor {
 public:
  explicit ScriptCursor(std::vector<const Step*> steps) : steps_(std::move(steps)) {}

  std::size_t index() const { return index_; }
  void move_to(std::size_t index) { index_ = index; }
  std::size_t size() const { return steps_.size(); }
  // The running step, nullopt once the script is over (serving the default way).
  std::optional<std::size_t> step() const {
    return index_ < steps_.size() ? std::optional(index_) : std::nullopt;
  }

  // Whether a step after the current one may take a client request of `method`: such a
  // request waits in the inbox for it instead of getting the default service
  // (docs/scenario-format.md, "Default service"). The current step has seen it already.
  bool later_step_takes(const std::string& method) const {
    for (auto i = index_ + 1; i < steps_.size(); ++i)
      if (steps_[i]->takes(method, captures_)) return true;
    return false;
  }

  Captures& captures() { return captures_; }
  const Captures& captures() const { return captures_; }
  // The captured request `name` was answered by the script (a stop answers the others).
  void answered(const std::string& name) { answered_.insert(name); }
  bool was_answered(const std::string& name) const { return answered_.count(name) > 0; }

 private:
  std::vector<const Step*> steps_;
  std::size_t index_ = 0;
  Captures captures_;
  std::set<std::string> answered_;
};

}  // namespace mcpping
