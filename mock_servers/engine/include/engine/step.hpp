// A script step, parsed once into a typed struct (docs/scenario-format.md, "Script steps"),
// and the kind of step it is: its action key, the other keys it may carry, the transports it
// may run on and its parse function. The kinds are listed in engine/steps/step_kinds.def.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/pattern.hpp"

namespace mcpping {

class Conversation;
class StepParser;

// What a step did: go on, stop the script (the stop reason is in the Conversation), or end the run
// at once (the case deadline passed or the host interrupted).
enum class StepResult { Ok, Failed, Abort };

class Step {
 public:
  virtual ~Step();
  virtual StepResult run(Conversation& conv) const = 0;
  // The timeout (its name) this step always waits out, whatever the client does, if any.
  virtual const std::string* fixed_wait() const { return nullptr; }
  // Whether the step may take a client request of `method` from the inbox (an `expect` of
  // it, its pattern read with `captures`): until it runs, such requests wait for it instead
  // of getting the default service.
  virtual bool takes(const std::string& /*method*/, const Captures& /*captures*/) const {
    return false;
  }
};

enum class StepTransports { Any, StdioOnly, HttpOnly, StreamableHttpOnly };

struct StepKind {
  std::string_view name;          // the action key
  std::vector<std::string> keys;  // the other keys the step may carry
  StepTransports transports = StepTransports::Any;
  std::unique_ptr<Step> (*parse)(StepParser&);
};

// Every step kind, in documentation order.
const std::vector<StepKind>& step_kinds();

}  // namespace mcpping
