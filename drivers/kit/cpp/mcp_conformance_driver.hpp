// The plumbing of an mcp-ping-conformance driver (driver contract v1.3,
// docs/driver-contract.md) in one header that needs only nlohmann_json and POSIX. A driver
// supplies one handler per op, the part specific to its client library, and hands over:
//
//   mcp_conformance::Handlers handlers;
//   handlers.connect = [&](const mcp_conformance::Context& ctx) { ...; return result; };
//   handlers.ping = [&](const mcp_conformance::Step& step) { return client->ping(step.timeout); };
//   return mcp_conformance::run_driver(argc, argv, handlers);
//
// run_driver() reads the environment, exits 127 for a transport or op the driver has no
// handler for before any handler runs, 2 for a malformed context, runs the steps in order
// (idle is a plain sleep; call_tools_concurrently runs call_tool on one thread per call when
// the driver sets concurrent_calls), prints one JSON line per step on stdout, and points
// everything else written to stdout at stderr. Asked for a session (MCP_CONFORMANCE_SESSION=1,
// contract v1.3), it runs case after case from its stdin, each in a process forked from this
// one, so that no case sees what another left behind. drivers/kit/README.md.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mcp_conformance {

using json = nlohmann::json;

inline constexpr int kExitUnsupported = 127;
inline constexpr int kExitMalformed = 2;
// Sessions (contract v1.3): the first line on stdout, and the variables each case sets.
inline constexpr const char* kSessionHello = "{\"driver_sessions\":1}";
inline constexpr const char* kCaseVariables[] = {
    "MCP_CONFORMANCE_SCENARIO", "MCP_CONFORMANCE_TRANSPORT", "MCP_CONFORMANCE_PROTOCOL_VERSION",
    "MCP_CONFORMANCE_CONTEXT"};

// Thrown by a handler to fail its step. `code` must be a JSON-RPC error code (never an HTTP
// status): the suite reads it as the one the server sent.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, std::optional<int> code = std::nullopt)
      : std::runtime_error(message), code_(code) {}
  std::optional<int> code() const noexcept { return code_; }

 private:
  std::optional<int> code_;
};

// What the suite asked for, as connect sees it.
struct Context {
  std::string transport;                    // "stdio", "streamable-http" or "sse"
  std::string protocol_version;             // the revision to offer in initialize
  std::vector<std::string> server_command;  // stdio: the argv the library must spawn
  std::string server_url;                   // HTTP transports
  std::vector<std::string> args;            // the driver's own arguments, without the URL
  json context;                             // MCP_CONFORMANCE_CONTEXT as given
};

// One step, validated: call_tool has a string name and object arguments.
struct Step {
  std::size_t index = 0;
  std::string op;
  json fields;                                       // the step object as given
  std::optional<std::chrono::milliseconds> timeout;  // timeout_ms (v1.1); none: the default

  std::string name() const { return fields.at("name").get<std::string>(); }
  json arguments() const { return fields.value("arguments", json::object()); }
};

using StepHandler = std::function<json(const Step&)>;

struct Handlers {
  std::set<std::string> transports = {"stdio", "streamable-http", "sse"};
  // An op left empty is unsupported: a case using it exits 127 (UNSUPPORTED). A handler
  // returns what the library returned to its caller (null is reported as {}) or throws.
  std::function<json(const Context&)> connect;
  StepHandler call_tool;
  StepHandler list_tools;
  StepHandler ping;
  StepHandler close;
  // call_tool may run on several threads at once: the kit then supports the op
  // call_tools_concurrently (contract v1.2). Left false, that op is unsupported (exit 127).
  bool concurrent_calls = false;
  // The JSON-RPC code a library's exception carries, if any; Error carries its own.
  std::function<std::optional<int>(const std::exception&)> error_code;
  std::string name;  // prefix of the kit's messages on stderr; default: argv[0]'s file name
};

namespace detail {

// Ends the run before any step: the exit status and why.
struct Refusal {
  int status;
  std::string message;
};

[[noreturn]] inline void malformed(const std::string& message) {
  throw Refusal{kExitMalformed, "malformed MCP_CONFORMANCE_CONTEXT: " + message};
}

inline std::string require_env(const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') {
    throw Refusal{kExitMalformed, std::string(variable) + " is not set"};
  }
  return value;
}

inline bool supports(const Handlers& handlers, const std::string& op) {
  if (op == "idle") return true;
  if (op == "connect") return static_cast<bool>(handlers.connect);
  if (op == "call_tool") return static_cast<bool>(handlers.call_tool);
  if (op == "call_tools_concurrently") return handlers.concurrent_calls && handlers.call_tool;
  if (op == "list_tools") return static_cast<bool>(handlers.list_tools);
  if (op == "ping") return static_cast<bool>(handlers.ping);
  if (op == "close") return static_cast<bool>(handlers.close);
  return false;
}

inline bool positive_integer(const json& value, bool zero_too) {
  return value.is_number_integer() && value.get<long long>() >= (zero_too ? 0 : 1);
}

// call_tools_concurrently: `calls`, at least two objects shaped like call_tool steps.
inline void check_calls(const json& step, const std::string& where) {
  const auto calls = step.find("calls");
  if (calls == step.end() || !calls->is_array() || calls->size() < 2) {
    malformed(where + ": call_tools_concurrently needs 'calls', an array of at least 2 calls");
  }
  for (std::size_t j = 0; j < calls->size(); ++j) {
    const json& call = (*calls)[j];
    const std::string which = where + ": calls[" + std::to_string(j) + "]";
    if (!call.is_object() || !call.contains("name") || !call["name"].is_string()) {
      malformed(which + " needs a string 'name'");
    }
    if (call.contains("arguments") && !call["arguments"].is_object()) {
      malformed(which + " 'arguments' must be an object");
    }
  }
}

// Every op is checked before any shape, so that an unsupported op wins over a malformed one.
inline void check_steps(const json& context, const Handlers& handlers) {
  if (!context.is_object()) malformed("not a JSON object");
  const auto steps = context.find("steps");
  if (steps == context.end() || !steps->is_array()) malformed("'steps' must be an array");
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const json& step = (*steps)[i];
    const std::string where = "steps[" + std::to_string(i) + "]";
    if (!step.is_object() || !step.contains("op") || !step["op"].is_string()) {
      malformed(where + " must be an object with a string 'op'");
    }
    if (!supports(handlers, step["op"].get<std::string>())) {
      throw Refusal{kExitUnsupported,
                    where + ": unsupported op '" + step["op"].get<std::string>() + "'"};
    }
  }
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const json& step = (*steps)[i];
    const std::string where = "steps[" + std::to_string(i) + "]";
    const std::string op = step["op"].get<std::string>();
    if (op == "call_tool" && (!step.contains("name") || !step["name"].is_string())) {
      malformed(where + ": call_tool needs a string 'name'");
    }
    if (op == "call_tool" && step.contains("arguments") && !step["arguments"].is_object()) {
      malformed(where + ": call_tool 'arguments' must be an object");
    }
    if (op == "call_tools_concurrently") check_calls(step, where);
    if (op == "idle" && (!step.contains("ms") || !positive_integer(step["ms"], true))) {
      malformed(where + ": idle needs a non-negative integer 'ms'");
    }
    if (step.contains("timeout_ms") && !positive_integer(step["timeout_ms"], false)) {
      malformed(where + ": 'timeout_ms' must be a positive integer");
    }
  }
}

// The HTTP server URL is appended as the last argument; a last argument that is no URL is
// one of the driver's own (a run by hand), and server.url is used instead.
inline void locate_server(Context& ctx) {
  const auto server = ctx.context.find("server");
  if (server == ctx.context.end() || !server->is_object()) malformed("'server' must be an object");
  if (ctx.transport == "stdio") {
    const auto command = server->find("command");
    if (command == server->end() || !command->is_array() || command->empty()) {
      malformed("stdio needs 'server.command', a non-empty array of strings");
    }
    for (const json& word : *command) {
      if (!word.is_string()) malformed("'server.command' must contain only strings");
      ctx.server_command.push_back(word.get<std::string>());
    }
    return;
  }
  if (!ctx.args.empty() && ctx.args.back().find("://") != std::string::npos) {
    ctx.server_url = ctx.args.back();
    ctx.args.pop_back();
  } else if (server->contains("url") && (*server)["url"].is_string()) {
    ctx.server_url = (*server)["url"].get<std::string>();
  } else {
    malformed("HTTP transports need the server URL (last argument or 'server.url')");
  }
}

inline Context read_invocation(int argc, char** argv, const Handlers& handlers) {
  Context ctx;
  ctx.transport = require_env("MCP_CONFORMANCE_TRANSPORT");
  if (handlers.transports.count(ctx.transport) == 0) {
    throw Refusal{kExitUnsupported, "transport '" + ctx.transport + "' is not supported"};
  }
  ctx.protocol_version = require_env("MCP_CONFORMANCE_PROTOCOL_VERSION");
  ctx.context = json::parse(require_env("MCP_CONFORMANCE_CONTEXT"), nullptr, false);
  if (ctx.context.is_discarded()) malformed("not valid JSON");
  check_steps(ctx.context, handlers);
  ctx.args.assign(argv + (argc > 0 ? 1 : 0), argv + argc);
  locate_server(ctx);
  return ctx;
}

// The step lines go to a private copy of stdout; fd 1 then points at stderr, so whatever a
// handler or the library prints (std::cout, printf, a child process) lands in the logs.
class Report {
 public:
  Report() {
    std::cout.flush();
    std::fflush(stdout);
    fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) fd_ = STDOUT_FILENO;
  }
  Report(const Report&) = delete;
  Report& operator=(const Report&) = delete;

  // Unbuffered, so that a driver killed at the deadline has every line it finished on record.
  void write_line(const nlohmann::ordered_json& line) const {
    const std::string text = line.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return;  // the suite stopped reading; nothing is left to report to
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  int fd_ = STDOUT_FILENO;
};

inline nlohmann::ordered_json error_object(const std::string& message, std::optional<int> code) {
  nlohmann::ordered_json error = nlohmann::ordered_json::object();
  if (code) error["code"] = *code;
  error["message"] = message;
  return error;
}

// Runs one handler: {"ok": true, "result": ..} or {"ok": false, "error": ..}, the failure
// logged on stderr as `what` failed.
template <typename Body>
nlohmann::ordered_json attempt(const Handlers& handlers, const std::string& name,
                               const std::string& what, Body&& body) {
  nlohmann::ordered_json outcome;
  std::optional<std::string> failure;
  std::optional<int> code;
  try {
    json result = body();
    outcome["ok"] = true;
    outcome["result"] = result.is_null() ? json::object() : std::move(result);
  } catch (const Error& e) {
    failure = e.what();
    code = e.code();
  } catch (const std::exception& e) {
    failure = e.what();
    if (handlers.error_code) code = handlers.error_code(e);
  } catch (...) {
    failure = "unknown exception";
  }
  if (failure) {
    // One write, so that the lines of calls failing at once do not interleave.
    std::cerr << (name + ": " + what + " failed: " + *failure + "\n") << std::flush;
    outcome["ok"] = false;
    outcome["error"] = error_object(*failure, code);
  }
  return outcome;
}

// Starts every call on its own thread, then waits for all; the outcomes in the calls' order.
inline json run_calls(const Handlers& handlers, const std::string& name, const Step& step) {
  const json& calls = step.fields["calls"];
  std::vector<nlohmann::ordered_json> outcomes(calls.size());
  std::vector<std::thread> threads;
  for (std::size_t j = 0; j < calls.size(); ++j) {
    threads.emplace_back([&, j] {
      const Step call{step.index, "call_tool", calls[j], std::nullopt};
      const std::string what = "step " + std::to_string(step.index) +
                               " (call_tools_concurrently "
                               "calls[" +
                               std::to_string(j) + "])";
      outcomes[j] = attempt(handlers, name, what, [&] { return handlers.call_tool(call); });
    });
  }
  for (auto& thread : threads) thread.join();
  json entries = json::array();
  for (const auto& outcome : outcomes) entries.push_back(json(outcome));
  return {{"calls", std::move(entries)}};
}

inline json run_step(const Handlers& handlers, const std::string& name, const Context& ctx,
                     const Step& step) {
  if (step.op == "call_tools_concurrently") return run_calls(handlers, name, step);
  if (step.op == "idle") {
    std::this_thread::sleep_for(std::chrono::milliseconds(step.fields["ms"].get<long long>()));
    return json::object();
  }
  if (step.op == "connect") return handlers.connect(ctx);
  if (step.op == "call_tool") return handlers.call_tool(step);
  if (step.op == "list_tools") return handlers.list_tools(step);
  if (step.op == "ping") return handlers.ping(step);
  return handlers.close(step);
}

}  // namespace detail

namespace detail {

// One case from the environment and argv: its exit status.
inline int run_case(int argc, char** argv, const Handlers& handlers, const std::string& name,
                    const Report& report) {
  Context ctx;
  try {
    ctx = read_invocation(argc, argv, handlers);
  } catch (const Refusal& refusal) {
    std::cerr << name << ": " << refusal.message << '\n';
    return refusal.status;
  }
  const json& steps = ctx.context["steps"];
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Step step{i, steps[i]["op"].get<std::string>(), steps[i], std::nullopt};
    if (step.fields.contains("timeout_ms")) {
      step.timeout = std::chrono::milliseconds(step.fields["timeout_ms"].get<long long>());
    }
    // Ordered for the human reader: step, op, ok, then result or error.
    nlohmann::ordered_json line = {{"step", i}, {"op", step.op}};
    const std::string what = "step " + std::to_string(i) + " (" + step.op + ")";
    line.update(attempt(handlers, name, what, [&] { return run_step(handlers, name, ctx, step); }));
    report.write_line(line);
  }
  return 0;
}

// The processes whose parent is this one: what the cases left, adopted as a subreaper.
inline std::vector<pid_t> adopted_children() {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  const std::string me = std::to_string(::getpid());
  while (const dirent* entry = ::readdir(proc)) {
    const std::string pid = entry->d_name;
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto paren = text.rfind(')');
    if (paren == std::string::npos) continue;
    std::string state, parent;
    std::istringstream fields(text.substr(paren + 1));
    if (fields >> state >> parent && parent == me) found.push_back(std::stoi(pid));
  }
  ::closedir(proc);
  return found;
}

// Up to two seconds for what a case left (its stdio server) to end by itself, then SIGKILL. As
// a subreaper the session process is the parent of those orphans: waitpid(-1) reaps them, and
// says when none is left.
inline void reap_leftovers() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (;;) {
    const pid_t reaped = ::waitpid(-1, nullptr, WNOHANG);
    if (reaped > 0) continue;
    if (reaped < 0 && errno != EINTR) return;  // ECHILD: nothing left
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (const pid_t pid : adopted_children()) ::kill(pid, SIGKILL);
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
}

// A case per line of stdin, each in a child forked from this process (a fresh client every
// time); the child's end is the case's.
inline void run_session(int argc, char** argv, const Handlers& handlers, const std::string& name,
                        const Report& report) {
#ifdef __linux__
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
  for (std::string text; std::getline(std::cin, text);) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const json request = json::parse(text, nullptr, false);
    if (!request.is_object()) {
      std::cerr << name << ": not a case: " << text << '\n';
      std::_Exit(kExitMalformed);
    }
    const json number = request.value("case", json());
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);  // nothing buffered is written twice, by the parent and the child
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
      for (const char* variable : kCaseVariables) ::unsetenv(variable);
      const json env = request.value("env", json::object());
      for (const auto& [variable, value] : env.items()) {
        if (value.is_string()) ::setenv(variable.c_str(), value.get<std::string>().c_str(), 1);
      }
      std::vector<std::string> words(argv, argv + argc);
      for (const json& word : request.value("args", json::array())) {
        if (word.is_string()) words.push_back(word.get<std::string>());
      }
      std::vector<char*> args;
      for (auto& word : words) args.push_back(word.data());
      args.push_back(nullptr);
      const int status =
          run_case(static_cast<int>(words.size()), args.data(), handlers, name, report);
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      std::_Exit(status);
    }
    int status = 0;
    if (pid > 0) {
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    reap_leftovers();
    nlohmann::ordered_json end = {{"case_end", number}};
    if (pid < 0) {
      end["exit"] = 1;
    } else if (WIFSIGNALED(status)) {
      end["signal"] = WTERMSIG(status);
    } else {
      end["exit"] = WEXITSTATUS(status);
    }
    std::cerr << ("mcp-conformance: end of case " + number.dump() + "\n") << std::flush;
    report.write_line(end);
  }
}

}  // namespace detail

// Runs the driver; main() returns what it returns: 0 after every step, 127 or 2 before any;
// in a session (contract v1.3), 0 at the end of its stdin.
inline int run_driver(int argc, char** argv, const Handlers& handlers) {
  std::string name = handlers.name;
  if (name.empty() && argc > 0) name = argv[0];
  name = name.substr(name.find_last_of('/') + 1);
  const char* session = std::getenv("MCP_CONFORMANCE_SESSION");
  const bool in_session = session != nullptr && std::string(session) == "1";
  if (in_session) {
    std::cout << kSessionHello << '\n' << std::flush;
  }
  const detail::Report report;
  if (in_session && std::getenv("MCP_CONFORMANCE_CONTEXT") == nullptr) {
    detail::run_session(argc, argv, handlers, name, report);
    return 0;
  }
  return detail::run_case(argc, argv, handlers, name, report);
}

}  // namespace mcp_conformance
