// Driver (contract v1.2, docs/driver-contract.md) for the official MCP Kotlin SDK's client,
// io.modelcontextprotocol:kotlin-sdk-client (Client on StdioClientTransport,
// StreamableHttpClientTransport or SseClientTransport, Ktor's CIO engine for HTTP). Kotlin has no
// driver kit, so this program does the kit's part too (drivers/kit/README.md): it refuses an
// unsupported transport or op with exit 127 and a malformed context with exit 2 before anything
// runs, runs the steps in order, prints one JSON line per step on stdout (everything else goes
// to stderr) and exits 0.
//
//   mvn -q -B package && mcp-ping-conformance run -- $PWD/run-driver
@file:Suppress("DEPRECATION") // SseClientTransport: the legacy HTTP+SSE transport is deprecated

import io.ktor.client.HttpClient
import io.ktor.client.engine.cio.CIO
import io.ktor.client.plugins.sse.SSE
import io.modelcontextprotocol.kotlin.sdk.client.Client
import io.modelcontextprotocol.kotlin.sdk.client.SseClientTransport
import io.modelcontextprotocol.kotlin.sdk.client.StdioClientTransport
import io.modelcontextprotocol.kotlin.sdk.client.StreamableHttpClientTransport
import io.modelcontextprotocol.kotlin.sdk.shared.RequestOptions
import io.modelcontextprotocol.kotlin.sdk.shared.Transport
import io.modelcontextprotocol.kotlin.sdk.types.CallToolRequest
import io.modelcontextprotocol.kotlin.sdk.types.CallToolRequestParams
import io.modelcontextprotocol.kotlin.sdk.types.Implementation
import io.modelcontextprotocol.kotlin.sdk.types.LATEST_PROTOCOL_VERSION
import io.modelcontextprotocol.kotlin.sdk.types.McpException
import io.modelcontextprotocol.kotlin.sdk.types.McpJson
import java.io.FileDescriptor
import java.io.FileOutputStream
import java.io.PrintStream
import java.util.concurrent.TimeUnit
import kotlin.system.exitProcess
import kotlin.time.Duration.Companion.milliseconds
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.io.asSink
import kotlinx.io.asSource
import kotlinx.io.buffered
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.encodeToJsonElement
import kotlinx.serialization.json.longOrNull
import kotlinx.serialization.json.put

private val OPS = setOf("connect", "call_tool", "call_tools_concurrently", "list_tools", "ping", "idle", "close")
private val TRANSPORTS = setOf("stdio", "streamable-http", "sse")

private fun log(message: String) = System.err.println("kotlin-sdk-driver: $message")

private fun refuse(status: Int, message: String): Nothing {
  log(message)
  exitProcess(status)
}

private fun env(key: String): String = System.getenv(key)?.takeIf { it.isNotEmpty() } ?: refuse(2, "$key is not set")

private fun JsonElement?.text(): String? = (this as? JsonPrimitive)?.takeIf { it.isString }?.content

private fun JsonElement?.isCount(minimum: Long): Boolean =
  (this as? JsonPrimitive)?.takeIf { !it.isString }?.longOrNull?.let { it >= minimum } == true

// A step lacking what its op needs (or with a bad timeout_ms) is a malformed context: exit 2.
private fun malformed(step: JsonObject): Boolean {
  val op = step["op"].text()
  val bad = (op == "call_tool" && step["name"].text() == null) ||
    (op == "idle" && !step["ms"].isCount(0)) ||
    ("timeout_ms" in step && !step["timeout_ms"].isCount(1))
  if (op != "call_tools_concurrently") return bad
  val calls = step["calls"] as? JsonArray ?: return true
  return bad || calls.size < 2 || calls.any { (it as? JsonObject)?.get("name").text() == null }
}

// The step's timeout_ms (contract v1.1) as the SDK's own per-request option; null keeps the
// SDK's default (DEFAULT_REQUEST_TIMEOUT, 60 s).
private fun options(step: JsonObject): RequestOptions? =
  (step["timeout_ms"] as? JsonPrimitive)?.longOrNull?.let { RequestOptions(timeout = it.milliseconds) }

// A step's (or a concurrent call's) "ok" with its result or error: "code" only where the SDK
// raised an McpException (a JSON-RPC error, or the SDK's own timeout and closed-connection
// codes), never an HTTP status.
private fun outcome(result: JsonElement?, error: Throwable?): JsonObject = buildJsonObject {
  if (error == null) {
    put("ok", true)
    put("result", result ?: JsonObject(emptyMap()))
    return@buildJsonObject
  }
  put("ok", false)
  put(
    "error",
    buildJsonObject {
      if (error is McpException) put("code", error.code)
      put("message", if (error is McpException) error.message.orEmpty() else error.toString())
    },
  )
}

private class Driver(private val transport: String, private val server: JsonObject, private val url: String?) {
  private var client: Client? = null
  private var process: Process? = null

  // stdio: the application starts the server and hands its pipes to the transport, as the SDK's
  // samples do; the server's stderr goes to the driver's stderr as it is (evidence).
  private fun stdioTransport(): Transport {
    val command = (server["command"] as JsonArray).map { it.text() ?: it.toString() }
    val started = ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start()
    process = started
    return StdioClientTransport(
      input = started.inputStream.asSource().buffered(),
      output = started.outputStream.asSink().buffered(),
    )
  }

  private fun makeTransport(): Transport = when (transport) {
    "stdio" -> stdioTransport()
    // The SDK's README way: a Ktor client with the SSE plugin, CIO as its engine.
    "sse" -> SseClientTransport(HttpClient(CIO) { install(SSE) }, url)
    else -> StreamableHttpClientTransport(HttpClient(CIO) { install(SSE) }, url!!)
  }

  private suspend fun connect(protocolVersion: String): JsonElement {
    // The client offers LATEST_PROTOCOL_VERSION in initialize; no option chooses another.
    if (protocolVersion != LATEST_PROTOCOL_VERSION) {
      log("asked to offer $protocolVersion; the SDK offers $LATEST_PROTOCOL_VERSION")
    }
    val connected = Client(Implementation("mcp-ping-conformance-kotlin-sdk-driver", "0.1.0"))
    client = connected
    connected.connect(makeTransport())
    return buildJsonObject {
      put("serverInfo", McpJson.encodeToJsonElement(connected.serverVersion))
      put("capabilities", McpJson.encodeToJsonElement(connected.serverCapabilities))
      connected.serverInstructions?.let { put("instructions", it) }
    }
  }

  private suspend fun callTool(call: JsonObject): JsonElement {
    val params = CallToolRequestParams(call["name"].text()!!, call["arguments"] as? JsonObject ?: JsonObject(emptyMap()))
    return McpJson.encodeToJsonElement(client!!.callTool(CallToolRequest(params), options(call)))
  }

  // Every call started at once in a coroutine of its own, then all awaited; each settles into its
  // own entry, in the order given.
  private suspend fun callConcurrently(step: JsonObject): JsonElement = coroutineScope {
    val calls = (step["calls"] as JsonArray).map { call ->
      async {
        try {
          outcome(callTool(call as JsonObject), null)
        } catch (e: Exception) {
          outcome(null, e)
        }
      }
    }
    buildJsonObject { put("calls", JsonArray(calls.awaitAll())) }
  }

  // close: the SDK's Client.close() (the transport closes the server's stdin); for stdio the
  // application then waits for its server to exit, and ends it if it does not.
  private suspend fun close() {
    client!!.close()
    process?.let { started ->
      if (!started.waitFor(2, TimeUnit.SECONDS)) started.destroy()
      if (!started.waitFor(2, TimeUnit.SECONDS)) started.destroyForcibly()
    }
  }

  suspend fun run(step: JsonObject, protocolVersion: String): JsonElement? {
    val op = step["op"].text()
    check(client != null || op == "connect" || op == "idle") { "not connected" }
    return when (op) {
      "connect" -> connect(protocolVersion)
      "call_tool" -> callTool(step)
      "call_tools_concurrently" -> callConcurrently(step)
      "list_tools" -> McpJson.encodeToJsonElement(client!!.listTools(options = options(step)))
      "ping" -> McpJson.encodeToJsonElement(client!!.ping(options(step)))
      "idle" -> null.also { delay((step["ms"] as JsonPrimitive).longOrNull!!) }
      else -> null.also { close() }
    }
  }
}

// The steps, checked before anything runs: an unknown op exits 127, a malformed step 2.
private fun readSteps(context: JsonObject): List<JsonObject> {
  val steps = context["steps"] as? JsonArray ?: refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: no 'steps' array")
  steps.forEachIndexed { i, step ->
    val op = (step as? JsonObject)?.get("op").text()
      ?: refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: steps[$i] must be an object with a string 'op'")
    if (op !in OPS) refuse(127, "steps[$i]: unsupported op '$op'")
  }
  return steps.map { it as JsonObject }.onEachIndexed { i, step ->
    if (malformed(step)) refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: steps[$i] (${step["op"].text()}) lacks a required field")
  }
}

fun main(args: Array<String>) {
  // The step lines go to a stream of their own on fd 1; System.out points at stderr, so that
  // nothing else (a library's print) can reach the report.
  val report = PrintStream(FileOutputStream(FileDescriptor.out), false, Charsets.UTF_8)
  System.setOut(System.err)
  // The SDK and Ktor log through SLF4J (slf4j-simple, to stderr): INFO and up, with the
  // milliseconds since start, to line up with the transcript.
  System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info")
  System.setProperty("org.slf4j.simpleLogger.showDateTime", "true")
  val transport = env("MCP_CONFORMANCE_TRANSPORT")
  if (transport !in TRANSPORTS) refuse(127, "transport '$transport' is not supported")
  val protocolVersion = env("MCP_CONFORMANCE_PROTOCOL_VERSION")
  val context = runCatching { McpJson.parseToJsonElement(env("MCP_CONFORMANCE_CONTEXT")) as JsonObject }
    .getOrElse { refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: ${it.message}") }
  val steps = readSteps(context)
  val server = context["server"] as? JsonObject ?: refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: no 'server' object")
  val url = args.lastOrNull()?.takeIf { "://" in it } ?: server["url"].text()
  val command = server["command"] as? JsonArray
  if (if (transport == "stdio") command.isNullOrEmpty() else url == null) {
    refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: no server command or URL for $transport")
  }
  val driver = Driver(transport, server, url)
  runBlocking {
    steps.forEachIndexed { i, step ->
      val line = try {
        outcome(driver.run(step, protocolVersion), null)
      } catch (e: Exception) {
        log("step $i (${step["op"].text()}) failed: $e")
        outcome(null, e)
      }
      val stepped = buildJsonObject {
        put("step", i)
        put("op", step["op"]!!)
        line.forEach { (key, value) -> put(key, value) }
      }
      report.print(stepped.toString() + "\n")
      report.flush()
    }
  }
  // At once: coroutines, threads or a child process the SDK left must not keep the driver alive.
  Runtime.getRuntime().halt(0)
}
