// Driver sessions (driver contract v1.3) end to end: a session process that crashes, hangs or
// writes garbage in one case changes the verdict of no other case, and every case gets the
// verdict it gets with one driver process per case.
#include <map>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "selftest_support.hpp"

namespace mcpping::selftest {
namespace {

const std::vector<std::string> kSessionCases = {
    "ping/id/zero",   "ping/id/string",  "ping/id/negative", "ping/params/empty",
    "ping/coalesced", "ping/id/integer", "ping/params/meta"};

std::vector<std::string> session_fault_driver() {
  return {MCP_PING_SESSION_FAULT_DRIVER,
          "crash=ping/id/string",
          "hang=ping/coalesced",
          "garbage=ping/params/empty",
          "--",
          MCP_PING_REFERENCE_DRIVER};
}

std::vector<std::string> session_run_options(bool sessions) {
  // One job slot, so that one session process runs case after case; a short deadline for
  // the case that hangs.
  std::vector<std::string> options = {"--transport",          "stdio", "--jobs", "1",
                                      "--timeout-multiplier", "0.3"};
  for (const auto& id : kSessionCases) options.insert(options.end(), {"--scenario", id});
  if (!sessions) options.push_back("--no-driver-sessions");
  return options;
}

std::map<std::string, std::string> session_verdicts(const RunnerRun& run) {
  std::map<std::string, std::string> out;
  for (const auto& id : kSessionCases)
    out[id] = case_verdict(run, "stdio", id).value("verdict", std::string("(none)"));
  return out;
}

// The session processes that ran the cases, as each case's stderr names them.
std::set<std::string> session_processes_of(const RunnerRun& run) {
  std::set<std::string> pids;
  const std::regex named("mcp-session-fault-driver: session process ([0-9]+)");
  for (const auto& id : kSessionCases) {
    const std::string err = read_text(run.report_dir / "cases" / "stdio" / id / "client.stderr");
    std::smatch match;
    if (std::regex_search(err, match, named)) pids.insert(match[1]);
  }
  return pids;
}

TEST(DriverSession, CrashHangAndGarbageInOneCaseChangeNoOtherVerdict) {
  const RunnerRun with = run_runner(session_run_options(true), session_fault_driver(), "sessions");
  const RunnerRun without =
      run_runner(session_run_options(false), session_fault_driver(), "per-case");
  const RunnerRun plain =
      run_runner(session_run_options(true), {MCP_PING_REFERENCE_DRIVER}, "plain");
  const auto sessions = session_verdicts(with);
  EXPECT_EQ(sessions, session_verdicts(without)) << with.output << without.output;
  EXPECT_EQ(sessions.at("ping/id/string"), "FAIL") << with.output;      // crashed
  EXPECT_EQ(sessions.at("ping/coalesced"), "FAIL") << with.output;      // hung
  EXPECT_EQ(sessions.at("ping/params/empty"), "ERROR") << with.output;  // garbage
  const auto reference = session_verdicts(plain);
  for (const auto& id : {"ping/id/zero", "ping/id/negative", "ping/id/integer", "ping/params/meta"})
    EXPECT_EQ(sessions.at(id), reference.at(id)) << id << "\n" << with.output;
  // The sessions did run: fewer processes than cases, each fault ending one.
  const auto pids = session_processes_of(with);
  EXPECT_GE(pids.size(), 2u) << with.output;
  EXPECT_LT(pids.size(), kSessionCases.size() - 1) << with.output;
  EXPECT_TRUE(session_processes_of(without).empty());
  // Between the cases the processes wrote nothing.
  for (const auto& entry : std::filesystem::directory_iterator(with.report_dir))
    EXPECT_EQ(entry.path().filename().string().rfind("driver-session-", 0), std::string::npos)
        << entry.path();
}

TEST(DriverSession, TheEvidenceOfACaseIsItsOwn) {
  const RunnerRun with =
      run_runner(session_run_options(true), {MCP_PING_REFERENCE_DRIVER}, "sessions");
  for (const auto& id : kSessionCases) {
    const auto dir = with.report_dir / "cases" / "stdio" / id;
    const std::string out = read_text(dir / "client.stdout");
    EXPECT_EQ(out.find("driver_sessions"), std::string::npos) << id << ": " << out;
    EXPECT_EQ(out.find("case_end"), std::string::npos) << id << ": " << out;
    EXPECT_EQ(out.rfind("{\"step\":0,", 0), 0u) << id << ": " << out;
    EXPECT_EQ(read_text(dir / "client.stderr").find("mcp-conformance: end of case"),
              std::string::npos)
        << id;
  }
}

}  // namespace
}  // namespace mcpping::selftest
