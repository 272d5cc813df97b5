// mcp-reference-driver: runs the conformance suite's steps against the reference client,
// following driver contract v1.1 (docs/driver-contract.md): one JSON line per step on stdout,
// logs on stderr, exit 127 for anything unsupported.

#include "mcp/client.hpp"
#include "mcp/sse_transport.hpp"
#include "mcp/stdio_transport.hpp"
#include "mcp/streamable_http_transport.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using nlohmann::json;

constexpr int kExitUnsupported = 127;
constexpr int kExitUsage = 2;

constexpr const char* kUsage =
    "usage: mcp-reference-driver [--request-timeout-ms N] [--keepalive-ms N] [--no-get-stream]\n"
    "                            [server-url]\n"
    "\n"
    "Runs the steps in MCP_CONFORMANCE_CONTEXT against the reference MCP client and prints\n"
    "one JSON line per step. Environment: MCP_CONFORMANCE_TRANSPORT ('stdio',\n"
    "'streamable-http' or 'sse'; others exit 127), MCP_CONFORMANCE_PROTOCOL_VERSION,\n"
    "MCP_CONFORMANCE_CONTEXT. HTTP transports take the server URL from the last argument,\n"
    "else from server.url in the context.\n"
    "\n"
    "  --request-timeout-ms N  timeout of each request (default 3000)\n"
    "  --keepalive-ms N        keepalive ping interval, 0 = off (default 0); the ping timeout\n"
    "                          equals the interval and 3 failures close the connection\n"
    "  --no-get-stream         Streamable HTTP: do not open the GET listening stream\n"
    "  --help                  print this text\n";

struct Settings {
  long request_timeout_ms = 3000;
  long keepalive_ms = 0;
  bool open_get_stream = true;
  std::string url;  // the positional argument, if any
};

[[noreturn]] void fail_usage(const std::string& message) {
  std::cerr << "mcp-reference-driver: " << message << "\n" << kUsage;
  std::exit(kExitUsage);
}

[[noreturn]] void fail_context(const std::string& message) {
  std::cerr << "mcp-reference-driver: malformed MCP_CONFORMANCE_CONTEXT: " << message << "\n";
  std::exit(kExitUsage);
}

long parse_non_negative(const std::string& option, const char* text) {
  if (text == nullptr) fail_usage(option + " needs a value");
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0) {
    fail_usage(option + " needs a non-negative integer, got '" + text + "'");
  }
  return value;
}

Settings parse_arguments(int argc, char** argv) {
  Settings settings;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--request-timeout-ms") {
      settings.request_timeout_ms = parse_non_negative(arg, i + 1 < argc ? argv[++i] : nullptr);
    } else if (arg == "--keepalive-ms") {
      settings.keepalive_ms = parse_non_negative(arg, i + 1 < argc ? argv[++i] : nullptr);
    } else if (arg == "--no-get-stream") {
      settings.open_get_stream = false;
    } else if (arg.rfind("--", 0) == 0) {
      fail_usage("unknown option " + arg);
    } else if (++positional > 1) {
      // HTTP transports append the server URL; nothing else is positional.
      fail_usage("unexpected argument " + arg);
    } else {
      settings.url = arg;
    }
  }
  if (settings.request_timeout_ms == 0) fail_usage("--request-timeout-ms must be positive");
  return settings;
}

std::string require_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') fail_usage(std::string(name) + " is not set");
  return value;
}

const std::set<std::string> kKnownOps = {"connect", "call_tool", "list_tools",
                                         "ping",    "idle",      "close"};

// Checks every step before anything runs. Unknown ops are "unsupported" (127), wrong shapes
// of known ops are a malformed context (2).
void validate_steps(const json& context, const std::string& transport) {
  if (!context.is_object()) fail_context("not a JSON object");
  const auto steps = context.find("steps");
  if (steps == context.end() || !steps->is_array()) fail_context("'steps' must be an array");
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const json& step = (*steps)[i];
    const std::string where = "steps[" + std::to_string(i) + "]";
    if (!step.is_object() || !step.contains("op") || !step["op"].is_string()) {
      fail_context(where + " must be an object with a string 'op'");
    }
    const std::string op = step["op"].get<std::string>();
    if (kKnownOps.count(op) == 0) {
      std::cerr << "mcp-reference-driver: " << where << ": unsupported op '" << op << "'\n";
      std::exit(kExitUnsupported);
    }
  }
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const json& step = (*steps)[i];
    const std::string where = "steps[" + std::to_string(i) + "]";
    const std::string op = step["op"].get<std::string>();
    if (op == "call_tool") {
      if (!step.contains("name") || !step["name"].is_string()) {
        fail_context(where + ": call_tool needs a string 'name'");
      }
      if (step.contains("arguments") && !step["arguments"].is_object()) {
        fail_context(where + ": call_tool 'arguments' must be an object");
      }
    } else if (op == "idle") {
      if (!step.contains("ms") || !step["ms"].is_number_integer() ||
          step["ms"].get<long long>() < 0) {
        fail_context(where + ": idle needs a non-negative integer 'ms'");
      }
    }
    if (step.contains("timeout_ms") &&
        (!step["timeout_ms"].is_number_integer() || step["timeout_ms"].get<long long>() <= 0)) {
      fail_context(where + ": 'timeout_ms' must be a positive integer");
    }
  }
  const auto server = context.find("server");
  if (server == context.end() || !server->is_object()) fail_context("'server' must be an object");
  if (transport != "stdio") return;  // the URL is checked by url_of()
  const auto command = server->find("command");
  if (command == server->end() || !command->is_array() || command->empty()) {
    fail_context("stdio needs 'server.command', a non-empty array of strings");
  }
  for (const json& arg : *command) {
    if (!arg.is_string()) fail_context("'server.command' must contain only strings");
  }
}

// The HTTP server URL: the last argument (driver contract), else server.url.
std::string url_of(const Settings& settings, const json& context) {
  if (!settings.url.empty()) return settings.url;
  const json& server = context["server"];
  if (server.contains("url") && server["url"].is_string()) return server["url"].get<std::string>();
  fail_context("HTTP transports need the server URL (last argument or 'server.url')");
}

void print_line(const nlohmann::ordered_json& line) {
  std::cout << line.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  std::cout.flush();
}

json error_object(const mcp::Error& e) {
  json error = {{"message", e.what()}};
  if (e.rpc_code()) error["code"] = *e.rpc_code();
  return error;
}

class Runner {
 public:
  // `target`: the server's argv (stdio) or its URL (HTTP), one word.
  Runner(const Settings& settings, std::string transport, std::string protocol_version,
         std::vector<std::string> target)
      : settings_(settings),
        transport_(std::move(transport)),
        protocol_version_(std::move(protocol_version)),
        target_(std::move(target)) {}

  ~Runner() {
    if (client_) client_->close();
  }

  json run(const json& step) {
    const std::string op = step["op"].get<std::string>();
    if (op == "connect") return connect();
    if (op == "idle") {
      std::this_thread::sleep_for(std::chrono::milliseconds(step["ms"].get<long long>()));
      return json::object();
    }
    if (!client_)
      throw mcp::Error(mcp::errc::not_connected, "not connected (no successful connect step)");
    // The step's own timeout (contract v1.1), as an application sets one per request.
    mcp::Client::Timeout timeout;
    if (step.contains("timeout_ms"))
      timeout = std::chrono::milliseconds(step["timeout_ms"].get<long long>());
    if (op == "call_tool") {
      return client_->call_tool(step["name"].get<std::string>(),
                                step.value("arguments", json::object()), timeout);
    }
    if (op == "list_tools") return client_->list_tools(std::nullopt, timeout);
    if (op == "ping") return client_->ping(timeout);
    // close
    client_->close();
    client_.reset();
    return json::object();
  }

 private:
  json connect() {
    if (client_) {
      client_->close();
      client_.reset();
    }
    mcp::ClientOptions options;
    options.client_info = {"mcp-reference-driver", "0.1.0"};
    options.protocol_version = protocol_version_;
    options.request_timeout = std::chrono::milliseconds(settings_.request_timeout_ms);
    options.keepalive.interval = std::chrono::milliseconds(settings_.keepalive_ms);
    options.keepalive.timeout = options.keepalive.interval;
    options.keepalive.failure_threshold = 3;
    options.logger = mcp::stderr_logger("mcp-reference-driver: ");
    auto client = std::make_unique<mcp::Client>(make_transport(), std::move(options));
    json result = client->connect();
    client_ = std::move(client);
    return result;
  }

  std::unique_ptr<mcp::Transport> make_transport() const {
    const mcp::Logger logger = mcp::stderr_logger("mcp-reference-driver: ");
    if (transport_ == "streamable-http") {
      mcp::StreamableHttpOptions options;
      options.logger = logger;
      options.open_get_stream = settings_.open_get_stream;
      return std::make_unique<mcp::StreamableHttpTransport>(target_.front(), std::move(options));
    }
    if (transport_ == "sse") {
      mcp::SseTransportOptions options;
      options.logger = logger;
      return std::make_unique<mcp::SseTransport>(target_.front(), std::move(options));
    }
    mcp::StdioTransportOptions options;
    options.logger = logger;
    return std::make_unique<mcp::StdioTransport>(mcp::StdioServerParameters{target_, {}},
                                                 std::move(options));
  }

  Settings settings_;
  std::string transport_;
  std::string protocol_version_;
  std::vector<std::string> target_;
  std::unique_ptr<mcp::Client> client_;
};

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_arguments(argc, argv);

  const std::string transport = require_env("MCP_CONFORMANCE_TRANSPORT");
  if (transport != "stdio" && transport != "streamable-http" && transport != "sse") {
    std::cerr << "mcp-reference-driver: transport '" << transport << "' is not supported\n";
    return kExitUnsupported;
  }
  const std::string protocol_version = require_env("MCP_CONFORMANCE_PROTOCOL_VERSION");
  const json context = json::parse(require_env("MCP_CONFORMANCE_CONTEXT"), nullptr, false);
  if (context.is_discarded()) fail_context("not valid JSON");
  validate_steps(context, transport);

  std::vector<std::string> target;
  if (transport == "stdio") {
    for (const json& arg : context["server"]["command"]) target.push_back(arg.get<std::string>());
  } else {
    target.push_back(url_of(settings, context));
  }

  Runner runner(settings, transport, protocol_version, std::move(target));
  const json& steps = context["steps"];
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string op = steps[i]["op"].get<std::string>();
    // Ordered only for the human reader: step, op, ok, then result or error.
    nlohmann::ordered_json line = {{"step", i}, {"op", op}};
    try {
      const json result = runner.run(steps[i]);
      line["ok"] = true;
      line["result"] = result;
    } catch (const mcp::Error& e) {
      line["ok"] = false;
      line["error"] = error_object(e);
    } catch (const std::exception& e) {
      line["ok"] = false;
      line["error"] = json{{"message", e.what()}};
    }
    print_line(line);
  }
  return 0;
}
