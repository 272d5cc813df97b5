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
#include <vector>

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

// The revision the client speaks (--protocol-version, else the run's).
std::string& session_revision() {
  static std::string revision;
  return revision;
}

// A request with the session's params (modern: the per-request _meta fields).
json request(broken::Connection& connection, const std::string& method, const json& params,
             std::optional<broken::Timeout> timeout) {
  return connection.request(method, broken::request_params(params, session_revision()), timeout);
}

// The step's timeout_ms; no-request-timeout ignores it and waits far longer than any case.
std::optional<broken::Timeout> timeout_of(const json& step) {
  if (broken::has("no-request-timeout")) return std::chrono::seconds(30);
  if (!step.contains("timeout_ms")) return std::nullopt;
  return broken::Timeout(step["timeout_ms"].get<long long>());
}

// The driver's ping op, with the faults of a client's own ping.
json own_ping(std::unique_ptr<broken::Connection>& connection, const json& step) {
  try {
    const json params = broken::has("ping-params-null") ? json() : json::object();
    json result = request(*connection, "ping", params, timeout_of(step));
    if (broken::has("ping-rejects-empty-result") && result.empty())
      throw std::runtime_error("invalid ping result: {}");
    return result;
  } catch (const std::exception&) {
    if (broken::has("ping-ignores-errors")) return json::object();
    if (broken::has("ping-error-closes")) {
      connection->close();
      connection.reset();
    }
    throw;
  }
}

// "the sender SHOULD issue a cancellation notification for that request"
void cancel(broken::Connection& connection, const broken::TimedOut& e) {
  const int id = broken::has("cancels-unknown-request") ? e.id + 1000 : e.id;
  if (!broken::has("no-cancel-on-timeout"))
    connection.notify("notifications/cancelled", {{"requestId", id}, {"reason", e.what()}});
}

// lists-tools-first: the tool list, as a library that looks a tool up before using it; a tool
// the server does not list fails the call without sending it.
void list_tools_first(broken::Connection& connection, const std::string& tool) {
  if (!broken::has("lists-tools-first")) return;
  const json listed = request(connection, "tools/list", json::object(), std::nullopt);
  for (const auto& t : listed.value("tools", json::array()))
    if (t.value("name", "") == tool) return;
  throw std::runtime_error("tool '" + tool + "' is not in the server's tools/list");
}

json call_tool(broken::Connection& connection, const json& call, const json& step) {
  list_tools_first(connection, call.value("name", ""));
  return request(connection, "tools/call",
                 {{"name", call["name"]}, {"arguments", call.value("arguments", json::object())}},
                 timeout_of(step));
}

// call_tools_concurrently: each call on its own thread, all in flight together; one entry
// per call, in the calls' order. With serial-calls, each call waits for the one before as
// long as an HTTP request may take (10 s): waiting only the stdio bound (5 s), as long as the
// mock server waits for the second call, raced that window on a loaded machine.
json call_concurrently(broken::Connection& connection, const json& calls) {
  const json step = broken::has("serial-calls") ? json{{"timeout_ms", 10000}} : json::object();
  std::vector<json> entries(calls.size());
  std::vector<std::thread> threads;
  const auto run_call = [&](std::size_t i) {
    try {
      entries[i] = {{"ok", true}, {"result", call_tool(connection, calls[i], step)}};
    } catch (const broken::TimedOut& e) {
      cancel(connection, e);
      entries[i] = {{"ok", false}, {"error", {{"message", e.what()}}}};
    } catch (const std::exception& e) {
      entries[i] = {{"ok", false}, {"error", {{"message", e.what()}}}};
    }
  };
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (broken::has("serial-calls")) {
      run_call(i);  // the next call only once the one before has its answer
    } else {
      threads.emplace_back(run_call, i);
    }
  }
  for (auto& thread : threads) thread.join();
  return {{"calls", entries}};
}

struct Arguments {
  std::optional<std::string> url;
  std::optional<std::string> offered;  // --protocol-version: what initialize offers
};

Arguments parse_arguments(int argc, char** argv) {
  Arguments args;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--fault" && i + 1 < argc) {
      const std::string fault = argv[++i];
      if (!broken::kFaults.count(fault)) die("unknown fault '" + fault + "'");
      broken::active_faults().insert(fault);
    } else if (word == "--protocol-version" && i + 1 < argc) {
      args.offered = argv[++i];
    } else if (word.rfind("http", 0) == 0 && !args.url) {
      args.url = word;  // HTTP transports append the server URL
    } else {
      die("usage: mcp-broken-client [--fault NAME]... [--protocol-version V] [server-url]");
    }
  }
  return args;
}

// Whether the case's transport and every op of its steps are known (else: exit 127).
bool supports(const std::string& kind, const json& context) {
  if (kind != "stdio" && kind != "streamable-http" && kind != "sse") return false;
  const std::set<std::string> ops = {
      "connect", "call_tool", "call_tools_concurrently", "list_tools", "ping", "idle", "close"};
  for (const auto& step : context["steps"]) {
    if (!ops.count(step.value("op", ""))) return false;
  }
  return true;
}

// The connect op: the transport's connection, and its handshake (or server/discover in a
// 2026-07-28 session), as the faults bend them.
json connect_and_initialize(std::unique_ptr<broken::Connection>& connection,
                            const std::string& kind, const json& context, const std::string& url,
                            const std::string& revision) {
  json result = json::object();
  if (kind == "stdio") {
    connection =
        broken::connect_stdio(context["server"]["command"].get<std::vector<std::string>>());
  } else if (kind == "sse") {
    connection = broken::connect_legacy_sse(url);
  } else {
    connection = broken::connect_streamable_http(url, revision);
  }
  if (broken::has("slow-start")) {
    // An interpreter loading a large library on a loaded machine: correct, only late.
    std::this_thread::sleep_for(std::chrono::milliseconds(5500));
  }
  if (broken::has("no-initialize")) {
    // Waits for the server to speak first, up to its own connect timeout.
    std::this_thread::sleep_for(std::chrono::seconds(6));
    throw std::runtime_error("connect timed out: the server never spoke first");
  }
  if (broken::modern_session()) {
    // No initialize: the server/discover probe, unless it skips it.
    if (!broken::has("skips-discover"))
      result = request(*connection, "server/discover", json::object(), std::nullopt);
  } else {
    json params = {{"protocolVersion", revision},
                   {"capabilities", json::object()},
                   {"clientInfo", {{"name", "mcp-broken-client"}, {"version", "1"}}}};
    if (broken::has("no-client-info")) params.erase("clientInfo");
    result = connection->request("initialize", params, std::nullopt);
    if (!broken::has("no-initialized")) connection->notify("notifications/initialized", json());
  }
  if (broken::has("lists-tools-first"))
    request(*connection, "tools/list", json::object(), std::nullopt);
  return result;
}

// The driver's steps in order, one result line each.
class StepRunner {
 public:
  StepRunner(std::string kind, json context, std::string url, std::string revision)
      : kind_(std::move(kind)),
        context_(std::move(context)),
        url_(std::move(url)),
        revision_(std::move(revision)) {}

  void run() {
    std::size_t index = 0;
    for (const auto& step : context_["steps"]) {
      const std::string op = step["op"];
      try {
        print_step(index, op, true, run_step(op, step));
      } catch (const broken::TimedOut& e) {
        if (connection_) cancel(*connection_, e);
        gave_up_ = broken::has("timeout-ends-session");
        abandoned_ = broken::has("timeout-breaks-session");
        print_step(index, op, false, {{"message", e.what()}});
      } catch (const std::exception& e) {
        print_step(index, op, false, {{"message", e.what()}});
      }
      ++index;
    }
  }

 private:
  json run_step(const std::string& op, const json& step) {
    json result = json::object();
    if (op == "connect") {
      result = connect_and_initialize(connection_, kind_, context_, url_, revision_);
    } else if (op == "idle") {
      std::this_thread::sleep_for(std::chrono::milliseconds(step.value("ms", 0)));
    } else if (op == "close") {
      if (broken::has("crash-on-close")) std::abort();
      if (connection_) connection_->close();
    } else if (!connection_) {
      throw std::runtime_error("not connected");
    } else if (broken::has("refuses-requests") || gave_up_) {
      throw std::runtime_error(op + " refused locally: nothing was sent");
    } else if (op == "call_tool") {
      result = call_tool(*connection_, step, step);
    } else if (op == "call_tools_concurrently") {
      result = call_concurrently(*connection_, step["calls"]);
    } else if (op == "list_tools") {
      result = request(*connection_, "tools/list", json::object(), timeout_of(step));
    } else if (op == "ping") {
      result = own_ping(connection_, step);
    }
    if (abandoned_ && op != "close")
      throw std::runtime_error(op + " failed: the session was abandoned with a timed-out request");
    return result;
  }

  const std::string kind_;
  const json context_;
  const std::string url_;
  const std::string revision_;
  std::unique_ptr<broken::Connection> connection_;
  bool gave_up_ = false;    // timeout-ends-session: a request timed out before
  bool abandoned_ = false;  // timeout-breaks-session: a request timed out before
};

}  // namespace

int main(int argc, char** argv) {
  const Arguments args = parse_arguments(argc, argv);
  if (!broken::has("sigpipe")) ::signal(SIGPIPE, SIG_IGN);

  const char* transport = std::getenv("MCP_CONFORMANCE_TRANSPORT");
  const char* context_text = std::getenv("MCP_CONFORMANCE_CONTEXT");
  const char* run_revision = std::getenv("MCP_CONFORMANCE_PROTOCOL_VERSION");
  if (!transport || !context_text || !run_revision) die("MCP_CONFORMANCE_* variables missing");
  // The revision of the run, unless --protocol-version says what to offer instead.
  const std::string revision = args.offered.value_or(run_revision);
  session_revision() = revision;
  broken::modern_session() = revision >= std::string("2026-07-28");
  json context = json::parse(context_text, nullptr, false);
  if (context.is_discarded() || !context.contains("steps")) die("bad MCP_CONFORMANCE_CONTEXT");
  if (!supports(transport, context)) return 127;
  StepRunner(transport, std::move(context), args.url.value_or(""), revision).run();
  return 0;
}
