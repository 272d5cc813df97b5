#include "conformance/driver_protocol.hpp"

#include <gtest/gtest.h>

namespace mcpping {
namespace {

using nlohmann::json;

const json kSteps = json::parse(R"([{"op":"connect"},{"op":"call_tool"},{"op":"close"}])");

TEST(Invocation, StdioGetsTheServerCommandInTheContext) {
  const json server = {{"command", {"/bin/mock", "--script", "s.json"}}};
  const auto invocation =
      make_invocation({"./driver", "-v"}, "ping/idle", "stdio", "2025-11-25", server, kSteps);
  EXPECT_EQ(invocation.argv, (std::vector<std::string>{"./driver", "-v"}));
  EXPECT_EQ(invocation.env.at("MCP_CONFORMANCE_SCENARIO"), "ping/idle");
  EXPECT_EQ(invocation.env.at("MCP_CONFORMANCE_TRANSPORT"), "stdio");
  EXPECT_EQ(invocation.env.at("MCP_CONFORMANCE_PROTOCOL_VERSION"), "2025-11-25");
  const json context = json::parse(invocation.env.at("MCP_CONFORMANCE_CONTEXT"));
  EXPECT_EQ(context["server"], server);
  EXPECT_EQ(context["steps"], kSteps);
}

TEST(Invocation, HttpAppendsTheUrlLast) {
  const json server = {{"url", "http://127.0.0.1:4242/mcp"}};
  const auto invocation =
      make_invocation({"./driver"}, "ping/idle", "streamable-http", "2025-11-25", server, kSteps);
  EXPECT_EQ(invocation.argv, (std::vector<std::string>{"./driver", "http://127.0.0.1:4242/mcp"}));
}

TEST(DriverOutput, ReadsOneLinePerStep) {
  const auto report = parse_driver_output(
      "{\"step\":0,\"op\":\"connect\",\"ok\":true,\"result\":{}}\n"
      "{\"step\":1,\"op\":\"call_tool\",\"ok\":false,\"error\":{\"code\":-32601,\"message\":\"x\"}}"
      "\n",
      kSteps);
  ASSERT_FALSE(report.problem) << *report.problem;
  ASSERT_EQ(report.steps.size(), 2u);
  EXPECT_TRUE(report.steps[0].ok);
  EXPECT_FALSE(report.steps[1].ok);
  EXPECT_EQ(report.steps[1].line["error"]["code"], -32601);
}

TEST(DriverOutput, AcceptsStepsCountedFromOne) {
  const auto report = parse_driver_output(
      "{\"step\":1,\"op\":\"connect\",\"ok\":true}\n{\"step\":2,\"op\":\"call_tool\",\"ok\":true}"
      "\n",
      kSteps);
  EXPECT_FALSE(report.problem);
  EXPECT_EQ(report.steps.size(), 2u);
}

TEST(DriverOutput, ATornLastLineIsNotAProblem) {
  const auto report =
      parse_driver_output("{\"step\":0,\"op\":\"connect\",\"ok\":true}\n{\"step\":1,\"op", kSteps);
  EXPECT_FALSE(report.problem);
  EXPECT_TRUE(report.last_line_incomplete);
  EXPECT_EQ(report.steps.size(), 1u);
}

TEST(DriverOutput, GarbageIsAProblemQuotingTheLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"connecting...\n", "is not a JSON object"},
      {"[1,2]\n", "is not a JSON object"},
      {"{\"step\":0}\n", "lacks the members"},
      {"{\"step\":0,\"op\":\"connect\",\"ok\":\"yes\"}\n", "lacks the members"},
      {"{\"step\":3,\"op\":\"connect\",\"ok\":true}\n", "where step 0 was due"},
      {"{\"step\":0,\"op\":\"ping\",\"ok\":true}\n", "reports op \"ping\""},
  };
  for (const auto& [output, why] : cases) {
    const auto report = parse_driver_output(output, kSteps);
    ASSERT_TRUE(report.problem) << output;
    EXPECT_NE(report.problem->find(why), std::string::npos) << *report.problem;
    EXPECT_NE(report.problem->find("line 1"), std::string::npos) << *report.problem;
  }
}

// Found by fuzzing: a step past INT64_MAX wrapped when read as a signed number, and the
// message named "step -1". It is named as the driver wrote it.
TEST(DriverOutput, RegressionStepBeyondInt64IsNamedAsWritten) {
  const auto report = parse_driver_output(
      "{\"step\":18446744073709551615,\"op\":\"connect\",\"ok\":true}\n", kSteps);
  ASSERT_TRUE(report.problem);
  EXPECT_NE(report.problem->find("reports step 18446744073709551615 where step 0 was due"),
            std::string::npos)
      << *report.problem;
}

TEST(DriverOutput, MoreLinesThanStepsIsAProblem) {
  const json one = json::parse(R"([{"op":"connect"}])");
  const auto report = parse_driver_output(
      "{\"step\":0,\"op\":\"connect\",\"ok\":true}\n{\"step\":1,\"op\":\"connect\",\"ok\":true}\n",
      one);
  ASSERT_TRUE(report.problem);
  EXPECT_NE(report.problem->find("beyond"), std::string::npos);
}

}  // namespace
}  // namespace mcpping
