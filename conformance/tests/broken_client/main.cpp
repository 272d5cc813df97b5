// mcp-broken-client: a deliberately defective MCP client with a driver-contract front, for
// the suite's self-tests. Without --fault it behaves; each --fault switches on one defect
// that real clients have shipped (faults.hpp), so the self-tests can prove the check meant
// for that defect catches it: a check that cannot fail is a defect of the suite.
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <thread>

#include "connection.hpp"
#include "faults.hpp"

namespace {

using broken::json;

[[noreturn]] void die(const std::string& why) {
  std::cerr << "mcp-broken-client: " << why << "\n";
  std::exit(2);
}

void print_step(std::size_t step, const std::string& op, bool ok, const json& payload) {
  json line = {{"step", step}, {"op", op}, {"ok", ok}};
  line[ok ? "result" : "error"] = payload;
  std::cout << line.dump() << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<std::string> url;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--fault" && i + 1 < argc) {
      const std::string fault = argv[++i];
      if (!broken::kFaults.count(fault)) die("unknown fault '" + fault + "'");
      broken::active_faults().insert(fault);
    } else if (word.rfind("http", 0) == 0 && !url) {
      url = word;  // HTTP transports append the server URL
    } else {
      die("usage: mcp-broken-client [--fault NAME]... [server-url]");
    }
  }
  if (!broken::has("sigpipe")) ::signal(SIGPIPE, SIG_IGN);

  const char* transport = std::getenv("MCP_CONFORMANCE_TRANSPORT");
  const char* context_text = std::getenv("MCP_CONFORMANCE_CONTEXT");
  const char* revision = std::getenv("MCP_CONFORMANCE_PROTOCOL_VERSION");
  if (!transport || !context_text || !revision) die("MCP_CONFORMANCE_* variables missing");
  const json context = json::parse(context_text, nullptr, false);
  if (context.is_discarded() || !context.contains("steps")) die("bad MCP_CONFORMANCE_CONTEXT");
  const std::string kind = transport;
  if (kind != "stdio" && kind != "streamable-http") return 127;
  const std::set<std::string> ops = {"connect", "call_tool", "list_tools", "ping", "idle", "close"};
  for (const auto& step : context["steps"]) {
    if (!ops.count(step.value("op", ""))) return 127;
  }

  std::unique_ptr<broken::Connection> connection;
  std::size_t index = 0;
  for (const auto& step : context["steps"]) {
    const std::string op = step["op"];
    try {
      json result = json::object();
      if (op == "connect") {
        connection = kind == "stdio"
                         ? broken::connect_stdio(
                               context["server"]["command"].get<std::vector<std::string>>())
                         : broken::connect_streamable_http(url.value_or(""), revision);
        result = connection->request(
            "initialize", {{"protocolVersion", revision},
                           {"capabilities", json::object()},
                           {"clientInfo", {{"name", "mcp-broken-client"}, {"version", "1"}}}});
        connection->notify("notifications/initialized");
      } else if (op == "idle") {
        std::this_thread::sleep_for(std::chrono::milliseconds(step.value("ms", 0)));
      } else if (op == "close") {
        if (connection) connection->close();
      } else if (!connection) {
        throw std::runtime_error("not connected");
      } else if (op == "call_tool") {
        result = connection->request("tools/call",
                                     {{"name", step["name"]}, {"arguments", step["arguments"]}});
      } else if (op == "list_tools") {
        result = connection->request("tools/list", json::object());
      } else if (op == "ping") {
        result = connection->request("ping", json::object());
      }
      print_step(index, op, true, result);
    } catch (const std::exception& e) {
      print_step(index, op, false, {{"message", e.what()}});
    }
    ++index;
  }
  return 0;
}
