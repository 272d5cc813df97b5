// Checks: how a fixture declares one (CheckDef) and what a mock server observed for it
// (CheckRecord). Neither holds a verdict: the runner's judge decides that.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fixture_reader.hpp"
#include "core/latency.hpp"
#include "core/spec_reference.hpp"
#include "core/verdict.hpp"

namespace mcpping {

using Json = nlohmann::json;

// What a check is about (docs/verdicts.md, "Subject, fate and findings").
enum class CheckKind {
  Subject,     // the case's own subject: its verdict is the worst of these
  Fate,        // the client's process in this case (crashed, hung, never started): can fail
               // the case, never makes it PASS on its own
  Collateral,  // the transport or the client in general (a header rule, the handshake): a
               // finding of the run, named once, never the case's verdict
};
std::string_view to_string(CheckKind kind);  // "subject", "fate", "collateral"
std::optional<CheckKind> parse_check_kind(std::string_view text);

struct CheckDef {
  std::string id;  // short id, unique within the scenario
  Level level = Level::Must;
  std::vector<std::string> spec;  // keys into SpecReferences
  // The transports its step runs on, when the step says (`"transports"`); empty: all.
  std::vector<std::string> transports = {};
  CheckKind kind = CheckKind::Subject;
  // What must have happened for the check to be judged, in words ("the server sent
  // \"ping\""); empty when the check is always judged once reached.
  std::string premise = {};
  // Labels of script sends (or fired faults) the check is about: judged only once the
  // server's transcript shows each of them (no blame and no credit without cause).
  std::vector<std::string> given = {};

  bool applies_to(std::string_view transport) const;
};

Json to_json(const CheckDef& check);  // {"id", "level", "spec"}, and "kind" unless subject

// Reads {"id","level","spec"} (and an optional "given": a label or a list of labels) at
// `pointer`. With `refs`, every spec key must exist there. Ids of built-in checks and their
// prefixes ("handshake", "transport:*", "http:*", "modern:*", "driver:*", "harness:*",
// "wire:*") are refused.
CheckDef parse_check(const FixtureReader& reader, const Json& value, const std::string& pointer,
                     const SpecReferences* refs);

// Ids the suite records on its own; a fixture cannot declare them.
bool is_reserved_check_id(std::string_view id);

// The premise text of a check given `labels`: "the server sent \"ping\"".
std::string given_premise(const std::vector<std::string>& labels);

struct CheckRecord {
  CheckDef check;
  Outcome outcome = Outcome::Met;
  std::string expected;
  std::string actual;
  std::vector<double> latency_ms;   // one per pong; empty otherwise
  std::optional<std::size_t> step;  // the script step that recorded it
  // Recorded by a mock server on its own (a transport rule, an invalid line), not declared
  // by the scenario.
  bool implicit = false;
  std::optional<BurstFigures> burst;  // set when latency_ms are a burst's
  Json details = Json::object();      // further facts, shown in transcript.txt
  double t = 0;                       // transcript time in ms, set when it is written
};

}  // namespace mcpping
