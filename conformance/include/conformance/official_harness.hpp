// Running an SDK's client harness for the official MCP conformance suite unchanged
// (docs/official-harness.md): which cases fit what such a harness does, each case as the
// harness runs it, and how the harness is invoked.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/case_plan.hpp"
#include "conformance/driver_protocol.hpp"
#include "core/scenario.hpp"

namespace mcpping {

// The official client scenario whose behaviour every covered case relies on: connect, list
// tools, close. Its server lists no tools, so a harness never goes on to call one.
inline constexpr std::string_view kOfficialScenario = "initialize";

// A case as an official harness runs it, or why it cannot.
struct HarnessFit {
  std::optional<Scenario> scenario;  // set when the case fits: the case adapted to the harness
  std::string why_not;               // otherwise: one line for the report
  bool wrong_transport = false;      // the reason is the transport, not the case's steps
};

// The rule (docs/official-harness.md, "Which cases run"):
//  1. the transport is Streamable HTTP (the official suite speaks nothing else);
//  2. the driver steps are connect, at most one call_tool or list_tools without a request
//     timeout, then close: the harness's connect, tools/list and close stand in for them;
//  3. every driver check judges connect or that request and expects "ok": true: the harness's
//     exit status stands in for them, as a harness prints no step lines;
//  4. the script waits for that request only as {"method": "tools/call"} (or does not wait for
//     it): such a step waits for the harness's tools/list instead.
// The adapted case has the harness's steps, no driver checks, and the rewritten script.
HarnessFit fit_official_harness(const Scenario& scenario, const std::string& transport);

// Applies the rule to planned cases: a case that fits runs as its adapted scenario (kept in
// `adapted`, which must outlive the cases), any other becomes UNSUPPORTED with the reason.
void plan_official_harness(std::vector<PlannedCase>& cases, std::deque<Scenario>& adapted);

// The resolved script as the official `initialize` scenario serves it: tools/list answers an
// empty list.
Json official_harness_script(Json resolved);

// The harness's command: its argv with the server URL last; MCP_CONFORMANCE_SCENARIO the
// official scenario, MCP_CONFORMANCE_PROTOCOL_VERSION the run's revision, and
// MCP_CONFORMANCE_CONTEXT {"name": <the official scenario>, "case": <case id>,
// "transport": ...}: "name" is what the official suite puts there for harnesses that parse
// the context as a union discriminated by scenario.
DriverInvocation official_harness_invocation(const std::vector<std::string>& harness_argv,
                                             const std::string& case_id,
                                             const std::string& transport,
                                             const std::string& revision, const std::string& url);

// `list --harness official`: the covered cases, one line each (id, transport, title); with
// `markdown`, docs/official-harness-cases.md: the covered cases, then every other case and
// transport with the reason.
std::string official_harness_listing(const std::vector<Scenario>& catalogue, bool markdown);

}  // namespace mcpping
