// The fixture loader: a scenario file's bytes through parse_scenario() with the engine's
// script validator, as the runner loads the catalogue. Inputs are arbitrary bytes and, by the
// JSON-aware mutator, variations of the real fixtures (the seed corpus is the catalogue).
// Oracles: a fixture is loaded or refused with a FixtureError, never another exception; and
// a fixture that loads resolves, for every transport it runs on, into a script the mock
// server accepts (a fixture the runner takes never becomes an ERROR at run time), and into
// driver steps.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "check.hpp"
#include "core/scenario.hpp"
#include "engine/script.hpp"
#include "json_mutator.hpp"

namespace {

using mcpping::Json;

const std::vector<std::string_view> kWords = {
    // the scenario's top level and driver steps
    "title", "description", "catches", "transports", "not_on", "revisions", "from", "until",
    "driver_steps", "driver_checks", "script", "deadline_kill", "http", "exclusive",
    "post_responses", "auto", "sse", "op", "connect", "call_tool", "call_tools_concurrently",
    "calls", "list_tools", "ping", "idle", "close", "name", "arguments", "request_timeout", "ms",
    "timeout", "step", "expect", "given", "FAIL", "INFO",
    // checks
    "id", "level", "spec", "MUST", "SHOULD", "MAY", "check", "ping.respond-promptly",
    "suite.client-survives", "transport:x", "handshake",
    // transports and revisions
    "stdio", "streamable-http", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25",
    "2026-07-28",
    // step kinds and their keys
    "expect_response", "expect_error", "expect_no_response", "expect_none", "observe_client_pings",
    "send_raw", "respond", "pause", "stderr", "stderr_bytes", "close_stdin", "close_stdout",
    "hold_input", "await_held_input", "serve_defaults", "await_get_stream", "fail_next_post",
    "expect_post", "disconnect", "await_resume", "send", "as", "within", "capabilities", "label",
    "repeat", "write", "chunk", "on", "result", "error", "default", "late_within", "code",
    "code_check", "window", "forbid", "info_check", "with", "preferred", "retry_check", "lines",
    "coalesced", "chopped", "get", "post", "event", "retry", "line_end", "multiline", "prefix",
    "404", "500", "reset",
    // timeouts, values and patterns
    "expect_ms", "pong_cap_ms", "quiet_ms", "observe_ms", "case_deadline_ms", "jsonrpc", "2.0",
    "method", "params", "tools/call", "${call.id}", "${i}", "call", "$text", "$repeat", "$any",
    "$absent", "$type", "$not", "$any_of", "$ref", "$contains"};

struct Context {
  mcpping::Defaults defaults;
  mcpping::SpecReferences refs;
};

const Context& context() {
  static const Context c{mcpping::load_defaults(MCP_FIXTURES_DIR "/defaults.json"),
                         mcpping::load_spec_references(MCP_FIXTURES_DIR "/spec-references.json")};
  return c;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return mcpping::fuzz::mutate_json(data, size, max_size, seed, kWords);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& [defaults, refs] = context();
  const std::string text(reinterpret_cast<const char*>(data), size);
  mcpping::Scenario scenario;
  try {
    scenario = mcpping::parse_scenario(text, "fuzz.json", "fuzz/case", defaults, refs,
                                       mcpping::validate_script);
  } catch (const mcpping::FixtureError&) {
    return 0;  // refused, naming file, pointer and reason
  }
  for (const auto& transport : scenario.transports) {
    const mcpping::RunSettings run{transport, scenario.revision_from, 1.0};
    const auto resolved = mcpping::resolve_script(scenario, defaults, run);
    try {
      mcpping::parse_resolved_script(resolved, "script.json");
    } catch (const mcpping::FixtureError& e) {
      FUZZ_CHECK(false, std::string("a loaded fixture's script is refused on ") + transport + ": " +
                            e.what());
    }
  }
  try {
    mcpping::resolve_driver_steps(scenario, mcpping::scaled_timeouts(defaults, 1.0));
  } catch (const mcpping::FixtureError& e) {
    FUZZ_CHECK(false, std::string("a loaded fixture's driver steps do not resolve: ") + e.what());
  }
  return 0;
}
