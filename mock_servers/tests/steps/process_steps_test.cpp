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

// Regression: the flood was written on a thread of its own, so a client that never drained
// stderr passed ping/stderr-flood. A server that logs blocks; the bound keeps it finite.
TEST(ProcessSteps, UndrainedStderrBlocksTheScriptUpToItsBound) {
  FakeChannel ch;
  ch.stderr_blocks = true;
  FakeClient client(ch);
  auto script = fixture_script("ping/stderr-flood", {{"pong_cap_ms", 40}});
  Transcript transcript;
  Interpreter interpreter(script, ch, transcript);
  client.start();
  EXPECT_EQ(interpreter.run(), "eof");
  const auto records = transcript.records();
  const auto drained = find_check(records, "stderr-drained");
  EXPECT_EQ(drained["outcome"], Json("broken"));
  EXPECT_NE(drained["actual"].get<std::string>().find("0 of 1048576 bytes written"),
            std::string::npos)
      << drained;
  // The ping still goes out after the bound, and the pong is recorded on its own.
  EXPECT_EQ(find_check(records, "pong")["outcome"], Json("met"));
  const auto written = records_of(records, "stderr");
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0]["bytes"], Json(0));
  EXPECT_EQ(written[0]["requested"], Json(1048576));
}

TEST(ProcessSteps, DrainedStderrMeetsTheCheck) {
  FakeChannel ch;
  FakeClient client(ch);
  Transcript transcript;
  Interpreter interpreter(fixture_script("ping/stderr-flood"), ch, transcript);
  client.start();
  interpreter.run();
  EXPECT_EQ(find_check(transcript.records(), "stderr-drained")["outcome"], Json("met"));
  EXPECT_EQ(ch.stderr_text.size(), 1048576u);
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
