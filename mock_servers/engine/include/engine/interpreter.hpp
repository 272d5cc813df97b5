// Runs a resolved script (resolve_script()) against a client over a Channel, recording
// frames and checks in the Transcript. Transport-neutral: hosts provide the Channel.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/channel.hpp"
#include "engine/script.hpp"
#include "engine/transcript.hpp"

namespace mcpping {

using Json = nlohmann::json;

class Interpreter {
 public:
  // `resolved` must have passed parse_resolved_script(); it is parsed here.
  Interpreter(const Json& resolved, Channel& channel, Transcript& transcript);
  // `script` is parse_resolved_script(resolved): a host that parsed it already passes it on.
  Interpreter(const Json& resolved, ParsedScript script, Channel& channel, Transcript& transcript);
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Records `start`, runs the script, then answers the default way until the client closes
  // the connection, the case deadline passes or the channel is interrupted. Records `end`
  // and returns its reason: "eof", "deadline", "interrupted", or "output closed" when the
  // script closed the server's output (the server then exits after a quiet window).
  std::string run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpping
