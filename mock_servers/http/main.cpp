// mcp-mock-http-server --script FILE --evidence-dir DIR
//
// The MCP server the runner starts for an HTTP case: Streamable HTTP or legacy HTTP+SSE on
// 127.0.0.1 (the resolved script's `transport`). Prints {"url":...} as its only stdout
// line once its socket listens (a connection made then waits for the accept loop), runs the
// script, writes its evidence into DIR.
// Exit status: 0 after a run, 2 for a bad command line or script or a failed start.
#include <cstdio>
#include <optional>
#include <string>

#include "core/scenario.hpp"
#include "core/timing.hpp"
#include "core/transport.hpp"
#include "engine/host.hpp"
#include "engine/interpreter.hpp"
#include "engine/script.hpp"
#include "engine/transcript.hpp"
#include "http/http_channel.hpp"

using namespace mcpping;

int main(int argc, char** argv) {
  const bool help = argc == 2 && std::string(argv[1]) == "--help";
  const auto args = parse_host_args(argc, argv);
  if (help || !args) {
    std::fprintf(help ? stdout : stderr, "usage: %s --script FILE --evidence-dir DIR\n", argv[0]);
    return help ? 0 : kHostBadInput;
  }
  prepare_host_signals();

  std::optional<Transcript> transcript;
  try {
    transcript.emplace(args->evidence_dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kHostBadInput;
  }
  write_pid_file(args->evidence_dir);
  const auto fail = [&](const std::string& what) {
    transcript->fatal(what);
    transcript->end("fatal");
    std::fprintf(stderr, "%s\n", what.c_str());
    return kHostBadInput;
  };

  LoadedScript loaded;
  try {
    loaded = load_script(args->script);
    const auto transport = loaded.resolved["transport"].get<std::string>();
    const auto known = find_transport(transport);
    if (!known || !traits_of(*known).http)
      throw FixtureError(
          args->script, "/transport",
          "the HTTP mock server runs HTTP transports only, not \"" + transport + "\"");
  } catch (const std::exception& e) {
    return fail(std::string("bad script: ") + e.what());
  }

  const Json& resolved = loaded.resolved;
  HttpOptions options;
  options.legacy = parse_transport(resolved["transport"].get<std::string>()) == Transport::Sse;
  options.post_always_sse = resolved.contains("http") &&
                            resolved["http"].value("post_responses", std::string("auto")) == "sse";
  options.modern = revision_is_modern(resolved["revision"].get<std::string>());
  options.deadline = latest_script_end(resolved);
  HttpChannel channel(*transcript, options);
  try {
    channel.start();
  } catch (const std::exception& e) {
    return fail(std::string("cannot serve HTTP: ") + e.what());
  }
  const ShutdownWatcher watcher(
      *transcript, options.deadline + kHttpWatchdogGrace,
      "still running " + std::to_string(kHttpWatchdogGrace.count()) + " s after the case deadline",
      channel);
  // The runner waits for this line: the server accepts connections from now on.
  std::printf("%s\n", Json{{"url", channel.url()}}.dump().c_str());
  std::fflush(stdout);
  Interpreter(resolved, std::move(loaded.script), channel, *transcript).run();
  channel.stop();
  return 0;
}
