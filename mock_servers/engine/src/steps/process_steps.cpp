// The server process itself: pause, stderr, stderr_bytes, close_stdin, close_stdout,
// serve_defaults.
#include <algorithm>
#include <optional>

#include "conversation.hpp"
#include "core/text.hpp"
#include "step_parser.hpp"

namespace mcpping::steps {

namespace {

// `bytes` of filler lines, ending with a newline.
std::string stderr_filler(std::size_t bytes) {
  static const std::string line =
      "mcp-ping-conformance stderr filler: the client must keep draining stderr.......\n";
  std::string out;
  out.reserve(bytes);
  while (out.size() < bytes) out.append(line, 0, std::min(line.size(), bytes - out.size()));
  if (!out.empty()) out.back() = '\n';
  return out;
}

struct Pause final : Step {
  std::string timeout;

  StepResult run(Conversation& conv) const override {
    return conv.go_on(conv.inbox().pump(Clock::now() + from_ms(conv.timeout(timeout)), nullptr));
  }
  const std::string* fixed_wait() const override { return &timeout; }
};

// Logs as a real server does: on the script's own thread, so a client that does not drain
// the pipe stalls the server (for `within` at most, then the rest is dropped).
struct WriteStderr final : Step {
  std::string text;  // the step's text; empty with `filler`
  std::size_t filler = 0;
  std::string within;
  std::optional<CheckDef> check;

  StepResult run(Conversation& conv) const override {
    const auto bytes = filler ? stderr_filler(filler) : text;
    const auto within_ms = conv.timeout(within);
    const auto t0 = Clock::now();
    const auto written = conv.channel().write_stderr(
        bytes, std::min(t0 + from_ms(within_ms), conv.clock().case_deadline()));
    const auto took = elapsed_ms(t0, Clock::now());
    conv.transcript().stderr_written(written, bytes.size());
    const auto all = std::to_string(bytes.size()) + " bytes";
    if (written < bytes.size()) {
      conv.transcript().event("the server was blocked on its stderr for " + format_ms(took) +
                              " ms: " + std::to_string(written) + " of " + all +
                              " written; the rest is dropped");
    }
    if (!check) return StepResult::Ok;
    const bool drained = written == bytes.size();
    conv.record(*check, drained ? Outcome::Met : Outcome::Broken,
                "the client drains the server's stderr: " + all + " written within " +
                    format_ms(within_ms) + " ms",
                drained ? all + " written in " + format_ms(took) + " ms"
                        : "the server was blocked on a full stderr pipe for " + format_ms(took) +
                              " ms, longer than the pong cap allows: " + std::to_string(written) +
                              " of " + all +
                              " written. A server that logs synchronously stalls, its pongs "
                              "included, while the client does not read its stderr");
    return StepResult::Ok;
  }
};

struct CloseStdin final : Step {
  StepResult run(Conversation& conv) const override {
    conv.channel().close_input();
    conv.transcript().event("closed the server's input: the client's writes now fail");
    conv.recorder().settle_deferred();  // nothing more can arrive
    return StepResult::Ok;
  }
};

struct CloseStdout final : Step {
  StepResult run(Conversation& conv) const override {
    conv.sender().close_output();
    conv.transcript().event("closed the server's output: the client sees end of file");
    return StepResult::Ok;
  }
};

// Arms the hold: once the client has written at least `min_bytes` of a message but not its
// end, the server stops reading (the client's write blocks on the full pipe) until its next
// write, so a frame it sends then reaches the client while the client is still writing. Armed
// before the client can start that message, so that no race with the reader decides.
struct HoldInput final : Step {
  std::size_t min_bytes = 0;

  StepResult run(Conversation& conv) const override {
    conv.channel().hold_input_at(min_bytes);
    conv.transcript().event("from here the server stops reading once " + std::to_string(min_bytes) +
                            " bytes of a client message have come without its end");
    return StepResult::Ok;
  }
};

// Waits until the armed hold has happened; the transcript says when and after how many bytes.
struct AwaitHeldInput final : Step {
  std::string within;

  StepResult run(Conversation& conv) const override {
    const auto within_ms = conv.timeout(within);
    const auto t0 = Clock::now();
    // The hold may have happened while an earlier step (the handshake) was waiting.
    const auto why = conv.inbox().await_event("partial-message", t0 + from_ms(within_ms),
                                              [&] { return conv.inbox().input_held(); });
    if (const auto held = conv.inbox().take_held_input()) {
      conv.transcript().event("held the client's input after " + std::to_string(*held) +
                                  " bytes of a message, not its end: the server reads on after "
                                  "its next write",
                              {{"bytes", *held}});
      return StepResult::Ok;
    }
    conv.channel().hold_input_at(0);
    if (why == Pump::CaseDeadline || why == Pump::Interrupted) return conv.after_wait(why);
    // The case goes on to record what did come (a request written whole, or none at all).
    conv.transcript().event("no client message was held within " + format_ms(within_ms) + " ms");
    return StepResult::Ok;
  }
};

// The interpreter serves the default way after the script anyway.
struct ServeDefaults final : Step {
  StepResult run(Conversation&) const override { return StepResult::Ok; }
};

}  // namespace

std::unique_ptr<Step> parse_pause(StepParser& p) {
  auto s = std::make_unique<Pause>();
  s->timeout = p.timeout_name(p.arg(), p.arg_pointer());
  return s;
}

std::unique_ptr<Step> parse_stderr(StepParser& p) {
  auto s = std::make_unique<WriteStderr>();
  if (p.has("stderr_bytes")) {
    s->filler = p.reader().count(p.arg(), p.arg_pointer(), 1);
  } else {
    s->text = p.string_arg();
  }
  s->within = p.timeout("within", "pong_cap_ms");
  s->check = p.optional_check("check");
  return s;
}

std::unique_ptr<Step> parse_stderr_bytes(StepParser& p) { return parse_stderr(p); }

std::unique_ptr<Step> parse_close_stdin(StepParser& p) {
  p.empty_arg();
  return std::make_unique<CloseStdin>();
}

std::unique_ptr<Step> parse_hold_input(StepParser& p) {
  const auto& arg = p.object_arg();
  p.reader().only_keys(arg, {"min_bytes"}, p.arg_pointer());
  auto s = std::make_unique<HoldInput>();
  s->min_bytes = p.reader().count(p.reader().member(arg, "min_bytes", p.arg_pointer()),
                                  p.arg_pointer() + "/min_bytes", 1);
  return s;
}

std::unique_ptr<Step> parse_await_held_input(StepParser& p) {
  p.empty_arg();
  auto s = std::make_unique<AwaitHeldInput>();
  s->within = p.timeout("within", "expect_ms");
  return s;
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
