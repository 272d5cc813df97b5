// Driver (contract v1.2, docs/driver-contract.md) for the official MCP Java SDK's client,
// io.modelcontextprotocol.sdk:mcp (McpClient.async, the classic client of the 2025-11-25 and
// earlier revisions). Java has no driver kit, so this program does the kit's part too
// (drivers/kit/README.md): it refuses an unsupported transport or op with exit 127 and a
// malformed context with exit 2 before anything runs, runs the steps in order, prints one JSON
// line per step on stdout (everything else goes to stderr) and exits 0.
//
//   mvn -q -B package && mcp-ping-conformance run -- $PWD/run-driver
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientSseClientTransport;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

public final class Driver {
  private static final Set<String> OPS = Set.of("connect", "call_tool", "call_tools_concurrently",
      "list_tools", "ping", "idle", "close");
  private static final Set<String> TRANSPORTS = Set.of("stdio", "streamable-http", "sse");

  private final McpJsonMapper json;
  private final String transport;
  private final Map<String, Object> server;
  private final String url;
  private McpAsyncClient client;

  private Driver(McpJsonMapper json, String transport, Map<String, Object> server, String url) {
    this.json = json;
    this.transport = transport;
    this.server = server;
    this.url = url;
  }

  private static void log(String message) {
    System.err.println("java-sdk-driver: " + message);
  }

  private static RuntimeException refuse(int status, String message) {
    log(message);
    System.exit(status);
    return new IllegalStateException(); // not reached
  }

  private static String env(String key) {
    String value = System.getenv(key);
    if (value == null || value.isEmpty()) {
      throw refuse(2, key + " is not set");
    }
    return value;
  }

  private static boolean isCount(Object value, long minimum) {
    return (value instanceof Integer || value instanceof Long) && ((Number) value).longValue() >= minimum;
  }

  // A step lacking what its op needs (or with a bad timeout_ms) is a malformed context: exit 2.
  private static boolean malformed(Map<String, Object> step) {
    Object op = step.get("op");
    boolean bad = ("call_tool".equals(op) && !(step.get("name") instanceof String))
        || ("idle".equals(op) && !isCount(step.get("ms"), 0))
        || (step.containsKey("timeout_ms") && !isCount(step.get("timeout_ms"), 1));
    if ("call_tools_concurrently".equals(op)) {
      if (!(step.get("calls") instanceof List<?> calls) || calls.size() < 2) {
        return true;
      }
      for (Object call : calls) {
        bad = bad || !(call instanceof Map<?, ?> c) || !(c.get("name") instanceof String);
      }
    }
    return bad;
  }

  private static Duration millis(Map<String, Object> step, String key) {
    return Duration.ofMillis(((Number) step.get(key)).longValue());
  }

  // The step's timeout_ms (contract v1.1) as the Reactor way to bound one request: the same
  // Mono.timeout the SDK applies with its client-wide requestTimeout (McpClientSession.sendRequest).
  private static <T> Mono<T> bounded(Mono<T> request, Map<String, Object> step) {
    return step.containsKey("timeout_ms") ? request.timeout(millis(step, "timeout_ms")) : request;
  }

  @SuppressWarnings("unchecked")
  private Mono<McpSchema.CallToolResult> callTool(Map<String, Object> call) {
    Map<String, Object> arguments = call.get("arguments") instanceof Map<?, ?> a ? (Map<String, Object>) a : Map.of();
    return bounded(client.callTool(new McpSchema.CallToolRequest((String) call.get("name"), arguments, null)), call);
  }

  @SuppressWarnings("unchecked")
  private Object connect(String protocolVersion) {
    McpClientTransport clientTransport;
    if (transport.equals("stdio")) {
      List<String> command = (List<String>) server.get("command");
      var stdio = new StdioClientTransport(
          ServerParameters.builder(command.get(0)).args(command.subList(1, command.size())).build(), json);
      stdio.setStdErrorHandler(System.err::println); // the server's stderr is evidence, as it is
      clientTransport = stdio;
    } else {
      URI uri = URI.create(url);
      String origin = uri.getScheme() + "://" + uri.getRawAuthority();
      String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
      clientTransport = transport.equals("sse")
          ? HttpClientSseClientTransport.builder(origin).sseEndpoint(path).build()
          : HttpClientStreamableHttpTransport.builder(origin).endpoint(path).build();
    }
    // The classic client offers the last of its transport's protocolVersions(): no option
    // chooses it, so a revision other than that one is only noted.
    List<String> offered = clientTransport.protocolVersions();
    if (!offered.get(offered.size() - 1).equals(protocolVersion)) {
      log("asked to offer " + protocolVersion + "; the SDK offers " + offered.get(offered.size() - 1));
    }
    client = McpClient.async(clientTransport)
        .clientInfo(new McpSchema.Implementation("mcp-ping-conformance-java-sdk-driver", "0.1.0"))
        .build();
    return client.initialize().block();
  }

  @SuppressWarnings("unchecked")
  private Object run(Map<String, Object> step, String protocolVersion) throws InterruptedException {
    String op = (String) step.get("op");
    if (client == null && !op.equals("connect") && !op.equals("idle")) {
      throw new IllegalStateException("not connected");
    }
    switch (op) {
      case "connect":
        return connect(protocolVersion);
      case "call_tool":
        return callTool(step).block();
      case "call_tools_concurrently":
        // Every call subscribed at once (mergeSequential subscribes eagerly), results in order.
        List<Mono<Map<String, Object>>> calls = ((List<Map<String, Object>>) step.get("calls")).stream()
            .map(call -> callTool(call).map(r -> outcome(r, null)).onErrorResume(e -> Mono.just(outcome(null, e))))
            .toList();
        return Map.of("calls", Flux.mergeSequential(calls).collectList().block());
      case "list_tools":
        return bounded(client.listTools(), step).block();
      case "ping":
        return bounded(client.ping(), step).block();
      case "idle":
        Thread.sleep(millis(step, "ms").toMillis());
        return null;
      default: // close
        client.closeGracefully().block();
        return null;
    }
  }

  // A step's (or a concurrent call's) "ok" with its result or error: "code" only for a JSON-RPC
  // error (McpError), never an HTTP status.
  private static Map<String, Object> outcome(Object result, Throwable error) {
    Map<String, Object> line = new LinkedHashMap<>();
    if (error != null) {
      Throwable cause = Exceptions.unwrap(error);
      Map<String, Object> failure = new LinkedHashMap<>();
      if (cause instanceof McpError mcp && mcp.getJsonRpcError() != null && mcp.getJsonRpcError().code() != null) {
        failure.put("code", mcp.getJsonRpcError().code());
      }
      failure.put("message", cause instanceof McpError ? String.valueOf(cause.getMessage()) : cause.toString());
      line.put("ok", false);
      line.put("error", failure);
    } else {
      line.put("ok", true);
      line.put("result", result == null ? Map.of() : result);
    }
    return line;
  }

  @SuppressWarnings("unchecked")
  public static void main(String[] args) throws Exception {
    // The step lines go to a stream of their own on fd 1; System.out points at stderr, so that
    // nothing else (a library's print) can reach the report.
    PrintStream report = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    System.setOut(System.err);
    // The SDK logs through SLF4J (slf4j-simple, to stderr): INFO and up, with the milliseconds
    // since start, to line up with the transcript.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
    String transport = env("MCP_CONFORMANCE_TRANSPORT");
    if (!TRANSPORTS.contains(transport)) {
      throw refuse(127, "transport '" + transport + "' is not supported");
    }
    String protocolVersion = env("MCP_CONFORMANCE_PROTOCOL_VERSION");
    McpJsonMapper json = McpJsonDefaults.getMapper();
    Map<String, Object> context;
    try {
      context = json.readValue(env("MCP_CONFORMANCE_CONTEXT"), new TypeRef<Map<String, Object>>() {});
    } catch (Exception e) {
      throw refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: " + e.getMessage());
    }
    if (!(context.get("steps") instanceof List<?> rawSteps) || !(context.get("server") instanceof Map<?, ?> server)) {
      throw refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: no 'steps' array or 'server' object");
    }
    for (int i = 0; i < rawSteps.size(); i++) {
      if (!(rawSteps.get(i) instanceof Map<?, ?> step) || !(step.get("op") instanceof String op)) {
        throw refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: steps[" + i + "] must be an object with a string 'op'");
      }
      if (!OPS.contains(op)) {
        throw refuse(127, "steps[" + i + "]: unsupported op '" + op + "'");
      }
    }
    List<Map<String, Object>> steps = (List<Map<String, Object>>) rawSteps;
    for (int i = 0; i < steps.size(); i++) {
      if (malformed(steps.get(i))) {
        throw refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: steps[" + i + "] (" + steps.get(i).get("op") + ") lacks a required field");
      }
    }
    String url = args.length > 0 && args[args.length - 1].contains("://") ? args[args.length - 1] : (String) server.get("url");
    if (transport.equals("stdio") ? !(server.get("command") instanceof List<?> c && !c.isEmpty()) : url == null) {
      throw refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: no server command or URL for " + transport);
    }
    Driver driver = new Driver(json, transport, (Map<String, Object>) server, url);
    for (int i = 0; i < steps.size(); i++) {
      Map<String, Object> step = steps.get(i);
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("step", i);
      line.put("op", step.get("op"));
      try {
        line.putAll(outcome(driver.run(step, protocolVersion), null));
      } catch (Exception e) {
        log("step " + i + " (" + step.get("op") + ") failed: " + e);
        line.putAll(outcome(null, e));
      }
      report.print(json.writeValueAsString(line) + "\n");
      report.flush();
    }
    // At once: threads or a child process the SDK left must not keep the driver alive.
    Runtime.getRuntime().halt(0);
  }
}
