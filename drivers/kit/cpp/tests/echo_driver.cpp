// The echo driver of drivers/kit/tests/cases.json on the C++ kit, plus the tool names
// 'fail-kit' (the kit's Error with a code) and 'fail-unknown' (no std::exception). Its
// call_tool is thread-safe (concurrent_calls), unless the first argument is --sequential-calls.

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "mcp_conformance_driver.hpp"

namespace {

using mcp_conformance::json;
using mcp_conformance::Step;

// A library's own exception type, carrying the JSON-RPC code of an error response.
class LibraryError : public std::runtime_error {
 public:
  LibraryError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int rpc_code() const { return code_; }

 private:
  int code_;
};

// One write: concurrent calls must not interleave their lines.
void called(const char* op) { std::cerr << (std::string("call ") + op + "\n") << std::flush; }

json timeout_of(const Step& step) { return step.timeout ? json(step.timeout->count()) : json(); }

// 'rendezvous' returns only once two such calls have started: calls run one after another
// never get there.
void rendezvous() {
  static std::mutex mutex;
  static std::condition_variable arrived;
  static int count = 0;
  std::unique_lock lock(mutex);
  ++count;
  arrived.notify_all();
  if (!arrived.wait_for(lock, std::chrono::seconds(10), [] { return count >= 2; })) {
    throw std::runtime_error("rendezvous: no other call in flight");
  }
}

json call_tool(const Step& step) {
  called("call_tool");
  const std::string name = step.name();
  if (name == "rendezvous") rendezvous();
  if (name == "fail-rpc") throw LibraryError(-32601, "Method not found");
  if (name == "fail-plain") throw std::runtime_error("plain failure");
  if (name == "fail-kit") throw mcp_conformance::Error("kit failure", -32000);
  if (name == "fail-unknown") throw 42;
  if (name == "spawn-child") {  // a child that ends only at the end of its stdin, left running
    int ends[2];
    if (::pipe(ends) != 0) throw std::runtime_error("pipe");
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(ends[0], STDIN_FILENO);
      ::close(ends[1]);
      ::execlp("cat", "cat", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(ends[0]);  // the write end stays open, as a library's pipe to its server does
    std::cerr << "child " << pid << std::endl;
    return {{"spawned", true}};
  }
  if (name == "log") {
    std::cout << "noise" << std::endl;
    std::printf("noise through printf\n");
    std::fflush(stdout);
    return {{"logged", true}};
  }
  return {{"name", name}, {"arguments", step.arguments()}, {"timeout_ms", timeout_of(step)}};
}

}  // namespace

int main(int argc, char** argv) {
  mcp_conformance::Handlers handlers;
  handlers.transports = {"stdio", "streamable-http"};
  handlers.connect = [](const mcp_conformance::Context& ctx) {
    called("connect");
    return json{{"transport", ctx.transport},
                {"protocol_version", ctx.protocol_version},
                {"server_command", ctx.server_command},
                {"server_url", ctx.server_url},
                {"args", ctx.args}};
  };
  handlers.call_tool = call_tool;
  handlers.concurrent_calls = !(argc > 1 && std::string(argv[1]) == "--sequential-calls");
  handlers.ping = [](const Step& step) {
    called("ping");
    return json{{"timeout_ms", timeout_of(step)}};
  };
  handlers.close = [](const Step&) {
    called("close");
    return json();
  };
  handlers.error_code = [](const std::exception& e) -> std::optional<int> {
    const auto* error = dynamic_cast<const LibraryError*>(&e);
    return error != nullptr ? std::optional<int>(error->rpc_code()) : std::nullopt;
  };
  return mcp_conformance::run_driver(argc, argv, handlers);
}
