// mcp-session-fault-driver: a driver that holds sessions (driver contract v1.3) by running
// another, per-case driver for each case, and misbehaves in the cases it is told to, in the
// session's own process: `crash=CASE` exits 3 there, `hang=CASE` never answers, `garbage=CASE`
// writes a line that is no step result before the case's steps. Run one case at a time
// (no MCP_CONFORMANCE_SESSION, or a pre-check) it misbehaves the same way, so that a run with
// and one without sessions must reach the same verdicts.
//
//   mcp-session-fault-driver [crash=ID] [hang=ID] [garbage=ID] -- <driver argv...>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

std::map<std::string, std::string> faults;  // case id -> crash | hang | garbage
std::vector<std::string> driver;

// Misbehaves as told for `scenario`; returns for garbage (the case then runs) and no fault.
void misbehave(const std::string& scenario) {
  const auto fault = faults.find(scenario);
  if (fault == faults.end()) return;
  if (fault->second == "crash") std::_Exit(3);
  if (fault->second == "hang") {
    for (;;) ::pause();
  }
  std::cout << "this line is not a step result\n" << std::flush;
}

// Runs the per-case driver with `extra` words appended; its exit status (128 + a signal).
int run_driver(const std::vector<std::string>& extra, bool quiet_stdin) {
  std::vector<std::string> words = driver;
  words.insert(words.end(), extra.begin(), extra.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (quiet_stdin) {
      const int devnull = ::open("/dev/null", O_RDONLY);
      ::dup2(devnull, STDIN_FILENO);
    }
    ::unsetenv("MCP_CONFORMANCE_SESSION");
    std::vector<char*> argv;
    for (auto& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::_Exit(126);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int main(int argc, char** argv) {
  int i = 1;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    const std::string word = argv[i];
    const auto eq = word.find('=');
    if (eq != std::string::npos) faults[word.substr(eq + 1)] = word.substr(0, eq);
  }
  std::vector<std::string> own_extra;  // the URL the suite appends in a run of one case
  for (++i; i < argc; ++i) driver.push_back(argv[i]);
  if (!driver.empty() && driver.back().find("://") != std::string::npos) {
    own_extra.push_back(driver.back());
    driver.pop_back();
  }
  const char* session = std::getenv("MCP_CONFORMANCE_SESSION");
  if (session != nullptr && std::string(session) == "1")
    std::cout << R"({"driver_sessions":1})"
                 "\n"
              << std::flush;
  if (session == nullptr || std::getenv("MCP_CONFORMANCE_CONTEXT") != nullptr) {
    const char* scenario = std::getenv("MCP_CONFORMANCE_SCENARIO");
    misbehave(scenario != nullptr ? scenario : "");
    const int status = run_driver(own_extra, false);
    return status;
  }
  for (std::string line; std::getline(std::cin, line);) {
    const json request = json::parse(line);
    for (const auto& [name, value] : request["env"].items()) {
      ::setenv(name.c_str(), value.get<std::string>().c_str(), 1);
    }
    misbehave(request["env"].value("MCP_CONFORMANCE_SCENARIO", ""));
    const int status = run_driver(request["args"].get<std::vector<std::string>>(), true);
    std::cerr << "mcp-session-fault-driver: session process " << ::getpid() << "\n"
              << "mcp-conformance: end of case " << request["case"].dump() << "\n"
              << std::flush;
    std::cout << json{{"case_end", request["case"]}, {"exit", status}}.dump() << "\n" << std::flush;
  }
  return 0;
}
