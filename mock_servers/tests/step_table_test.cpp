#include <gtest/gtest.h>

#include "engine/script.hpp"
#include "id_match.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

// Every step kind has one table line; the parsed script keeps each step's action.
TEST(StepTable, ParsesEachStepOnceIntoItsKind) {
  const auto resolved = test::make_resolved(
      test::ping_script(Json::parse(R"({"jsonrpc":"2.0","id":"p","method":"ping"})")));
  const auto parsed = parse_resolved_script(resolved, "r.json");
  ASSERT_EQ(parsed.steps.size(), 6u);
  const std::vector<std::string_view> actions = {"handshake",       "expect",  "send",
                                                 "expect_response", "respond", "serve_defaults"};
  for (std::size_t i = 0; i < actions.size(); ++i) {
    EXPECT_EQ(parsed.steps[i].action, actions[i]);
    EXPECT_NE(parsed.steps[i].step, nullptr);
  }
  ASSERT_EQ(parsed.checks.size(), 3u);
  EXPECT_EQ(parsed.checks[0].id, "handshake");
  EXPECT_EQ(parsed.checks[2].id, "pong");
  EXPECT_EQ(step_kinds().size(), 24u);
}

// The runner schedules by the waits a script always sits out (conformance/case_schedule.hpp):
// pauses and the windows of the steps that wait for nothing; waits for the client are not.
TEST(StepTable, SummaryNamesTheFixedWaits) {
  const TimeoutTable timeouts = test::fixture_defaults().timeouts;
  const Json ping = {{"send", {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}}, {"label", "p"}};
  const Json script = Json::array(
      {Json{{"handshake", Json::object()}}, Json{{"pause", "idle_window_ms"}}, ping,
       Json{{"expect_response", "p"}, {"check", test::check_def("pong")}},
       Json{{"expect_no_response", "p"}, {"window", "quiet_ms"}, {"check", test::check_def("q")}},
       Json{{"observe_client_pings", Json::object()}, {"check", test::check_def("o")}}});
  const auto summary =
      validate_script(script, ScriptContext{"f.json", &timeouts, nullptr, nullptr});
  EXPECT_EQ(summary.fixed_waits,
            (std::vector<std::string>{"idle_window_ms", "quiet_ms", "observe_ms"}));
}

TEST(StepTable, AStepWithoutAnActionNamesEveryKind) {
  const TimeoutTable timeouts = test::fixture_defaults().timeouts;
  try {
    validate_script(Json::array({Json{{"handshake", Json::object()}}, Json{{"label", "x"}}}),
                    ScriptContext{"f.json", &timeouts, nullptr, nullptr});
    ADD_FAILURE() << "accepted";
  } catch (const FixtureError& e) {
    EXPECT_EQ(e.pointer(), "/script/1");
    for (const auto& kind : step_kinds())
      EXPECT_NE(e.reason().find(std::string(kind.name)), std::string::npos) << kind.name;
  }
}

}  // namespace
}  // namespace mcpping
