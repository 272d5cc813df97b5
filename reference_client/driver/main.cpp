// mcp-reference-driver: runs the conformance suite's steps against the reference client
// (driver contract v1.3, docs/driver-contract.md) on the C++ driver kit, which does the
// plumbing: environment, validation, exit 127 for anything unsupported, one JSON line per step.

#include "mcp/client.hpp"
#include "mcp/sse_transport.hpp"
#include "mcp/stdio_transport.hpp"
#include "mcp/streamable_http_transport.hpp"
#include "mcp_conformance_driver.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

namespace {

using nlohmann::json;

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
};

[[noreturn]] void fail_usage(const std::string& message) {
  std::cerr << "mcp-reference-driver: " << message << "\n" << kUsage;
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

// The options only: the kit takes the server URL, the one positional argument.
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
      fail_usage("unexpected argument " + arg);
    }
  }
  if (settings.request_timeout_ms == 0) fail_usage("--request-timeout-ms must be positive");
  return settings;
}

std::unique_ptr<mcp::Transport> make_transport(const Settings& settings,
                                               const mcp_conformance::Context& ctx) {
  const mcp::Logger logger = mcp::stderr_logger("mcp-reference-driver: ");
  if (ctx.transport == "streamable-http") {
    mcp::StreamableHttpOptions options;
    options.logger = logger;
    options.open_get_stream = settings.open_get_stream;
    return std::make_unique<mcp::StreamableHttpTransport>(ctx.server_url, std::move(options));
  }
  if (ctx.transport == "sse") {
    mcp::SseTransportOptions options;
    options.logger = logger;
    return std::make_unique<mcp::SseTransport>(ctx.server_url, std::move(options));
  }
  mcp::StdioTransportOptions options;
  options.logger = logger;
  return std::make_unique<mcp::StdioTransport>(mcp::StdioServerParameters{ctx.server_command, {}},
                                               std::move(options));
}

mcp::ClientOptions client_options(const Settings& settings, const std::string& protocol_version) {
  mcp::ClientOptions options;
  options.client_info = {"mcp-reference-driver", "0.1.0"};
  options.protocol_version = protocol_version;
  options.request_timeout = std::chrono::milliseconds(settings.request_timeout_ms);
  options.keepalive.interval = std::chrono::milliseconds(settings.keepalive_ms);
  options.keepalive.timeout = options.keepalive.interval;
  options.keepalive.failure_threshold = 3;
  options.logger = mcp::stderr_logger("mcp-reference-driver: ");
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_arguments(argc, argv);
  // Declared first so that it outlives the handlers; ~Client closes a client still open.
  std::unique_ptr<mcp::Client> client;
  const auto connected = [&]() -> mcp::Client& {
    if (!client)
      throw mcp::Error(mcp::errc::not_connected, "not connected (no successful connect step)");
    return *client;
  };
  using Step = mcp_conformance::Step;

  mcp_conformance::Handlers handlers;
  handlers.connect = [&](const mcp_conformance::Context& ctx) {
    client.reset();
    auto next = std::make_unique<mcp::Client>(make_transport(settings, ctx),
                                              client_options(settings, ctx.protocol_version));
    json result = next->connect();
    client = std::move(next);
    return result;
  };
  // A step's timeout (contract v1.1) is passed as an application sets one per request.
  handlers.call_tool = [&](const Step& step) {
    return connected().call_tool(step.name(), step.arguments(), step.timeout);
  };
  // mcp::Client takes calls from several threads at once: call_tools_concurrently (v1.2).
  handlers.concurrent_calls = true;
  handlers.list_tools = [&](const Step& step) {
    return connected().list_tools(std::nullopt, step.timeout);
  };
  handlers.ping = [&](const Step& step) { return connected().ping(step.timeout); };
  handlers.close = [&](const Step&) {
    connected().close();
    client.reset();
    return json::object();
  };
  handlers.error_code = [](const std::exception& e) -> std::optional<int> {
    const auto* error = dynamic_cast<const mcp::Error*>(&e);
    return error != nullptr ? error->rpc_code() : std::nullopt;
  };
  return mcp_conformance::run_driver(argc, argv, handlers);
}
