#include "core/driver_op.hpp"

#include "spelling_table.hpp"

namespace mcpping {

// One row per op, in the order of the enumerators.
const std::vector<DriverOpTraits>& all_driver_ops() {
  // clang-format off
  static const std::vector<DriverOpTraits> rows = {
      // op                             spelling                   keys its step may carry
      {DriverOp::Connect,               "connect",                 {"op"}},
      {DriverOp::CallTool,              "call_tool",               {"op", "name", "arguments", "request_timeout"}},
      {DriverOp::CallToolsConcurrently, "call_tools_concurrently", {"op", "calls"}},
      {DriverOp::ListTools,             "list_tools",              {"op", "request_timeout"}},
      {DriverOp::Ping,                  "ping",                    {"op", "request_timeout"}},
      {DriverOp::Idle,                  "idle",                    {"op", "ms", "timeout"}},
      {DriverOp::Close,                 "close",                   {"op"}},
  };
  // clang-format on
  return rows;
}

const DriverOpTraits& traits_of(DriverOp value) {
  return spelling_table::row_of(all_driver_ops(), value);
}

std::string_view to_string(DriverOp value) { return traits_of(value).spelling; }

std::optional<DriverOp> find_driver_op(std::string_view spelling) {
  return spelling_table::find<DriverOp>(all_driver_ops(), spelling);
}

DriverOp parse_driver_op(std::string_view spelling) {
  return spelling_table::parse<DriverOp>(all_driver_ops(), spelling, "op");
}

const std::vector<std::string>& known_driver_ops() {
  static const std::vector<std::string> spellings = spelling_table::spellings(all_driver_ops());
  return spellings;
}

}  // namespace mcpping
