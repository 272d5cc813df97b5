// The server process itself: pause, stderr, stderr_bytes, close_stdin, close_stdout,
// serve_defaults.
#include "engine/run.hpp"
#include "engine/steps/step_kinds.hpp"

namespace mcpping::steps {

namespace {

struct Pause final : Step {
  std::string timeout;

  StepResult run(Run& run) const override {
    return run.go_on(run.pump(Clock::now() + from_ms(run.timeout(timeout)), nullptr));
  }
};

struct WriteStderr final : Step {
  std::string text;  // the step's text; empty with `filler`
  std::size_t filler = 0;

  StepResult run(Run& run) const override {
    run.stderr_writer.enqueue(filler ? stderr_filler(filler) : text);
    return StepResult::Ok;
  }
};

struct CloseStdin final : Step {
  StepResult run(Run& run) const override {
    run.channel.close_input();
    run.transcript.event("closed the server's input: the client's writes now fail");
    return StepResult::Ok;
  }
};

struct CloseStdout final : Step {
  StepResult run(Run& run) const override {
    run.channel.close_output();
    run.output_closed = true;
    run.transcript.event("closed the server's output: the client sees end of file");
    return StepResult::Ok;
  }
};

// The interpreter serves the default way after the script anyway.
struct ServeDefaults final : Step {
  StepResult run(Run&) const override { return StepResult::Ok; }
};

}  // namespace

std::unique_ptr<Step> parse_pause(StepParser& p) {
  auto s = std::make_unique<Pause>();
  s->timeout = p.timeout_name(p.arg(), p.arg_pointer());
  return s;
}

std::unique_ptr<Step> parse_stderr(StepParser& p) {
  auto s = std::make_unique<WriteStderr>();
  s->text = p.string_arg();
  return s;
}

std::unique_ptr<Step> parse_stderr_bytes(StepParser& p) {
  auto s = std::make_unique<WriteStderr>();
  s->filler = p.reader().count(p.arg(), p.arg_pointer(), 1);
  return s;
}

std::unique_ptr<Step> parse_close_stdin(StepParser& p) {
  p.empty_arg();
  return std::make_unique<CloseStdin>();
}

std::unique_ptr<Step> parse_close_stdout(StepParser& p) {
  p.empty_arg();
  return std::make_unique<CloseStdout>();
}

std::unique_ptr<Step> parse_serve_defaults(StepParser& p) {
  p.empty_arg();
  if (!p.is_last()) {
    p.fail(p.arg_pointer(),
           "serve_defaults runs until the client closes the connection: it must be the last "
           "step");
  }
  return std::make_unique<ServeDefaults>();
}

}  // namespace mcpping::steps
