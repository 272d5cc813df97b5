#include <gtest/gtest.h>

#include "engine/interpreter.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

using test::FakeChannel;
using test::FakeClient;
using test::find_check;
using test::fixture_script;
using test::records_of;
using test::run;

TEST(ProcessSteps, UndrainedStderrDoesNotBlockTheScript) {
  FakeChannel ch;
  ch.stderr_blocks = true;
  FakeClient client(ch);
  auto script = fixture_script("ping/while-awaiting");
  script["script"].insert(script["script"].begin() + 1, Json{{"stderr_bytes", 100000}});
  Transcript transcript;
  {
    Interpreter interpreter(script, ch, transcript);
    client.start();
    EXPECT_EQ(interpreter.run(), "eof");
  }  // the stderr writer is stopped here
  const auto records = transcript.records();
  EXPECT_EQ(find_check(records, "pong")["outcome"], Json("met"));
  const auto written = records_of(records, "stderr");
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0]["bytes"], Json(0));
  EXPECT_EQ(written[0]["requested"], Json(100000));
}

TEST(ProcessSteps, StderrStepsWriteTextAndFiller) {
  FakeChannel ch;
  FakeClient client(ch);
  auto script = fixture_script("ping/while-awaiting");
  script["script"].insert(script["script"].begin() + 1, Json{{"stderr", "hello\n"}});
  script["script"].insert(script["script"].begin() + 2, Json{{"stderr_bytes", 1000}});
  Transcript transcript;
  {
    Interpreter interpreter(script, ch, transcript);
    client.start();
    interpreter.run();
  }
  EXPECT_EQ(ch.stderr_text.size(), 1006u);
  EXPECT_EQ(ch.stderr_text.substr(0, 6), "hello\n");
  EXPECT_EQ(ch.stderr_text.back(), '\n');
}

}  // namespace
}  // namespace mcpping
