// mcp-mock-http-server --script FILE --evidence-dir DIR
//
// The MCP server the runner starts for an HTTP case: Streamable HTTP or legacy HTTP+SSE on
// 127.0.0.1 (the resolved script's `transport`). Prints {"url":...} as its only stdout
// line once its socket listens (a connection made then waits for the accept loop), runs the
// script, writes its evidence into DIR.
// Exit status: 0 after a run, 2 for a bad command line or script or a failed start.
#include <cstdio>
#include <string>

#include "core/scenario.hpp"
#include "core/timing.hpp"
#include "core/transport.hpp"
#include "engine/host.hpp"
#include "engine/interpreter.hpp"
#include "engine/transcript.hpp"
#include "http/http_channel.hpp"

using namespace mcpping;

namespace {

// Refuses a script for a transport other than HTTP's.
void check_http_transport(const std::string& file, const Json& resolved) {
  const auto transport = resolved["transport"].get<std::string>();
  const auto known = find_transport(transport);
  if (!known || !traits_of(*known).http)
    throw FixtureError(file, "/transport",
                       "the HTTP mock server runs HTTP transports only, not \"" + transport + "\"");
}

int serve_http(Transcript& transcript, LoadedScript& loaded) {
  const Json& resolved = loaded.resolved;
  HttpOptions options;
  options.legacy = parse_transport(resolved["transport"].get<std::string>()) == Transport::Sse;
  options.post_always_sse = resolved.contains("http") &&
                            resolved["http"].value("post_responses", std::string("auto")) == "sse";
  options.modern = revision_is_modern(resolved["revision"].get<std::string>());
  options.deadline = latest_script_end(resolved);
  HttpChannel channel(transcript, options);
  try {
    channel.start();
  } catch (const std::exception& e) {
    return host_fail(transcript, std::string("cannot serve HTTP: ") + e.what(), true);
  }
  const ShutdownWatcher watcher(
      transcript, options.deadline + kHttpWatchdogGrace,
      "still running " + std::to_string(kHttpWatchdogGrace.count()) + " s after the case deadline",
      channel);
  // The runner waits for this line: the server accepts connections from now on.
  std::printf("%s\n", Json{{"url", channel.url()}}.dump().c_str());
  std::fflush(stdout);
  Interpreter(resolved, std::move(loaded.script), channel, transcript).run();
  channel.stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return host_main(argc, argv, true, check_http_transport, serve_http);
}
