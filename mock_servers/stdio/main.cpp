// mcp-mock-stdio-server --script FILE --evidence-dir DIR
//
// The MCP server a client under test spawns on stdio. It runs one resolved scenario
// script (resolve_script()) and writes its evidence into DIR. stdin/stdout belong to the
// protocol and stderr to the script's stderr steps, so its own diagnostics go into the
// transcript only. Exit status: 0 after a run (whatever the client did), 2 for a bad
// command line or script.
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>

#include "core/timing.hpp"
#include "engine/host.hpp"
#include "engine/interpreter.hpp"
#include "engine/transcript.hpp"
#include "stdio/stdio_channel.hpp"

using namespace mcpping;

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--help") {
    std::printf("usage: %s --script FILE --evidence-dir DIR\n", argv[0]);
    return 0;
  }
  const auto args = parse_host_args(argc, argv);
  if (!args) return kHostBadInput;
  prepare_host_signals();

  std::optional<Transcript> transcript;
  try {
    transcript.emplace(args->evidence_dir);
  } catch (const std::exception&) {
    return kHostBadInput;  // nowhere to report it: stderr belongs to the script
  }
  write_pid_file(args->evidence_dir);

  LoadedScript loaded;
  try {
    loaded = load_script(args->script);
  } catch (const std::exception& e) {
    transcript->fatal(std::string("bad script: ") + e.what());
    transcript->end("fatal");
    return kHostBadInput;
  }

  const auto& resolved = loaded.resolved;
  StdioChannel channel(STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO,
                       resolved["line_cap_bytes"].get<std::size_t>());
  const ShutdownWatcher watcher(
      *transcript, latest_script_end(resolved) + kStdioWatchdogGrace,
      "still running " + std::to_string(kStdioWatchdogGrace.count()) +
          " s after the case deadline (a write blocked on a client that stopped reading?)",
      channel);
  channel.start();
  Interpreter(resolved, std::move(loaded.script), channel, *transcript).run();
  channel.stop();
  return 0;
}
