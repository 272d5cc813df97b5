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
#include "core/spec_reference.hpp"
#include "core/verdict.hpp"

namespace mcpping {

using Json = nlohmann::json;

struct CheckDef {
  std::string id;  // short id, unique within the scenario
  Level level = Level::Must;
  std::vector<std::string> spec;  // keys into SpecReferences
  // The transports its step runs on, when the step says (`"transports"`); empty: all.
  std::vector<std::string> transports = {};

  bool applies_to(std::string_view transport) const;
};

Json to_json(const CheckDef& check);  // {"id", "level", "spec"}

// Reads {"id","level","spec"} at `pointer`. With `refs`, every spec key must exist there.
// Ids the mock servers use for their own checks ("handshake", "transport:*") are refused.
CheckDef parse_check(const FixtureReader& reader, const Json& value, const std::string& pointer,
                     const SpecReferences* refs);

// The check the handshake records: lifecycle order.
CheckDef handshake_check();

// Ids the mock servers record on their own ("handshake", "transport:*", "modern:*"); a
// fixture cannot declare them.
bool is_reserved_check_id(std::string_view id);

struct CheckRecord {
  CheckDef check;
  Outcome outcome = Outcome::Met;
  std::string expected;
  std::string actual;
  std::vector<double> latency_ms;   // one per pong; empty otherwise
  std::optional<std::size_t> step;  // the script step that recorded it
  // Recorded by a mock server on its own (a transport rule, an invalid line), not declared
  // by the scenario: shown apart from the case's subject.
  bool implicit = false;
  Json details = Json::object();  // further facts: a latency summary, ping times
  double t = 0;                   // transcript time in ms, set when it is written
};

}  // namespace mcpping
