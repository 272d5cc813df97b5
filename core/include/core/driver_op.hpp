// The ops of a driver step (docs/driver-contract.md, "Steps"): one table
// (core/src/driver_op.cpp) holds each op's spelling and the keys its step may carry.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpping {

enum class DriverOp { Connect, CallTool, CallToolsConcurrently, ListTools, Ping, Idle, Close };

struct DriverOpTraits {
  DriverOp op;
  std::string_view spelling;
  // The keys a fixture's step of this op may carry, "op" included ("request_timeout" and
  // "timeout" are timeout names the runner resolves to the contract's "timeout_ms" and "ms").
  std::vector<std::string> keys;
};

// Every op, in the contract's order.
const std::vector<DriverOpTraits>& all_driver_ops();
const DriverOpTraits& traits_of(DriverOp op);
std::string_view to_string(DriverOp op);
// nullopt for a spelling no op has.
std::optional<DriverOp> find_driver_op(std::string_view spelling);
// Throws std::invalid_argument naming the known spellings for one no op has.
DriverOp parse_driver_op(std::string_view spelling);
// The spellings, in the contract's order.
const std::vector<std::string>& known_driver_ops();

}  // namespace mcpping
