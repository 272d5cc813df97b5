#include "script_cursor.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

// A step that takes requests of one method.
struct Takes final : Step {
  explicit Takes(std::string m) : method(std::move(m)) {}
  std::string method;
  StepResult run(Conversation&) const override { return StepResult::Ok; }
  bool takes(const std::string& m, const Captures&) const override { return m == method; }
};

// Only a step after the running one can claim a request: the running one has seen it.
TEST(ScriptCursor, OnlyALaterStepTakesARequest) {
  const Takes list("tools/list");
  const Takes call("tools/call");
  ScriptCursor script({&list, &call});
  EXPECT_FALSE(script.later_step_takes("tools/list"));
  EXPECT_TRUE(script.later_step_takes("tools/call"));
  script.move_to(1);
  EXPECT_FALSE(script.later_step_takes("tools/call"));
}

// The running step is attributed while the script runs, none once it is over.
TEST(ScriptCursor, NoStepRunsOnceTheScriptIsOver) {
  const Takes list("tools/list");
  ScriptCursor script({&list});
  ASSERT_TRUE(script.step());
  EXPECT_EQ(*script.step(), 0u);
  script.move_to(1);
  EXPECT_FALSE(script.step());
}

TEST(ScriptCursor, ACapturedRequestIsAnsweredOnce) {
  ScriptCursor script({});
  script.captures()["call"] = Json{{"id", 1}};
  EXPECT_FALSE(script.was_answered("call"));
  script.answered("call");
  EXPECT_TRUE(script.was_answered("call"));
  EXPECT_EQ(script.captures().at("call")["id"], 1);
}

}  // namespace
}  // namespace mcpping
