// mcp-mock-stdio-server --script FILE --evidence-dir DIR
//
// The MCP server a client under test spawns on stdio. It runs one resolved scenario
// script (resolve_script()) and writes its evidence into DIR. stdin/stdout belong to the
// protocol and stderr to the script's stderr steps, so its own diagnostics go into the
// transcript only. Exit status: 0 after a run (whatever the client did), 2 for a bad
// command line or script.
#include <unistd.h>

#include <string>

#include "core/timing.hpp"
#include "engine/host.hpp"
#include "engine/interpreter.hpp"
#include "stdio/stdio_channel.hpp"

using namespace mcpping;

int main(int argc, char** argv) {
  return host_main(argc, argv, false, nullptr, [](Transcript& transcript, LoadedScript& loaded) {
    const auto& resolved = loaded.resolved;
    StdioChannel channel(STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO,
                         resolved["line_cap_bytes"].get<std::size_t>());
    const ShutdownWatcher watcher(
        transcript, latest_script_end(resolved) + kStdioWatchdogGrace,
        "still running " + std::to_string(kStdioWatchdogGrace.count()) +
            " s after the case deadline (a write blocked on a client that stopped reading?)",
        channel);
    channel.start();
    Interpreter(resolved, std::move(loaded.script), channel, transcript).run();
    channel.stop();
    return 0;
  });
}
