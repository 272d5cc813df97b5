//! Driver (contract v1.2, docs/driver-contract.md) for the official MCP Rust SDK's client,
//! the `rmcp` crate. Rust has no driver kit, so this program does the kit's part too
//! (drivers/kit/README.md): it refuses an unsupported transport or op with exit 127 and a
//! malformed context with exit 2 before anything runs, runs the steps in order, prints one
//! JSON line per step on stdout (everything else goes to stderr) and exits 0.
//!
//!     cargo build --release --locked && mcp-ping-conformance run -- $PWD/target/release/rust-sdk-driver
//!
//! Only rmcp's public client API: `ClientConfig` as the client's handler (it answers pings),
//! `serve_with_lifecycle` over `TokioChildProcess` (stdio) or `StreamableHttpClientTransport`
//! (Streamable HTTP). rmcp 3 has no legacy HTTP+SSE client, so `sse` is unsupported.

use std::fs::File;
use std::io::Write;
use std::os::fd::FromRawFd;
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    Implementation, JsonObject, PingRequest, ProtocolVersion, ServerResult,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, Peer, PeerRequestOptions,
    RoleClient, RunningService, ServiceError,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Map, Value, json};

const NAME: &str = "rust-sdk-driver";
const OPS: &[&str] = &[
    "connect",
    "call_tool",
    "call_tools_concurrently",
    "list_tools",
    "ping",
    "idle",
    "close",
];

macro_rules! log {
    ($($arg:tt)*) => { eprintln!("{NAME}: {}", format!($($arg)*)) };
}

fn refuse(status: i32, message: String) -> ! {
    log!("{message}");
    std::process::exit(status)
}

struct Invocation {
    transport: String,
    protocol_version: String,
    command: Vec<String>,
    url: String,
    steps: Vec<Map<String, Value>>,
}

/// What the suite asked for, or exit 127 (unsupported) or 2 (malformed).
fn read() -> Invocation {
    let env = |key: &str| {
        std::env::var(key)
            .ok()
            .filter(|value| !value.is_empty())
            .unwrap_or_else(|| refuse(2, format!("{key} is not set")))
    };
    let transport = env("MCP_CONFORMANCE_TRANSPORT");
    if transport == "sse" {
        refuse(
            127,
            "transport 'sse' is not supported: rmcp 3 has no legacy HTTP+SSE client".into(),
        );
    }
    if transport != "stdio" && transport != "streamable-http" {
        refuse(127, format!("transport '{transport}' is not supported"));
    }
    let protocol_version = env("MCP_CONFORMANCE_PROTOCOL_VERSION");
    let malformed =
        |why: String| -> ! { refuse(2, format!("malformed MCP_CONFORMANCE_CONTEXT: {why}")) };
    let context: Value = serde_json::from_str(&env("MCP_CONFORMANCE_CONTEXT"))
        .unwrap_or_else(|error| malformed(error.to_string()));
    let Some(raw_steps) = context.get("steps").and_then(Value::as_array) else {
        malformed("no 'steps' array".into())
    };
    let mut steps = Vec::new();
    for (i, raw) in raw_steps.iter().enumerate() {
        let Some(op) = raw.get("op").and_then(Value::as_str) else {
            malformed(format!("steps[{i}] must be an object with a string 'op'"))
        };
        if !OPS.contains(&op) {
            refuse(127, format!("steps[{i}]: unsupported op '{op}'"));
        }
        steps.push(raw.as_object().cloned().unwrap_or_default());
    }
    for (i, step) in steps.iter().enumerate() {
        let op = step["op"].as_str().unwrap_or_default();
        let calls = step.get("calls").and_then(Value::as_array);
        let bad = (op == "call_tool" && !step.get("name").is_some_and(Value::is_string))
            || (op == "idle" && step.get("ms").and_then(Value::as_u64).is_none())
            || step
                .get("timeout_ms")
                .is_some_and(|t| t.as_u64().unwrap_or(0) < 1)
            || (op == "call_tools_concurrently"
                && !calls.is_some_and(|calls| {
                    calls.len() >= 2
                        && calls
                            .iter()
                            .all(|c| c.get("name").is_some_and(Value::is_string))
                }));
        if bad {
            malformed(format!("steps[{i}] ({op}) lacks a required field"));
        }
    }
    let server = context.get("server");
    let command: Vec<String> = server
        .and_then(|s| s.get("command"))
        .and_then(Value::as_array)
        .map(|words| {
            words
                .iter()
                .filter_map(|w| w.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let url = match std::env::args().skip(1).last() {
        Some(last) if last.contains("://") => last,
        _ => server
            .and_then(|s| s.get("url"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .into(),
    };
    if (transport == "stdio" && command.is_empty()) || (transport != "stdio" && url.is_empty()) {
        malformed(format!("no server command or URL for {transport}"));
    }
    Invocation {
        transport,
        protocol_version,
        command,
        url,
        steps,
    }
}

type Client = RunningService<RoleClient, ClientConfig>;

#[derive(Debug)]
enum Failure {
    Service(ServiceError),
    Initialize(ClientInitializeError),
    Other(String),
}

/// A step's (or a concurrent call's) "ok" with its result or error: "code" only for a
/// JSON-RPC error the SDK hands over, never an HTTP status.
fn outcome(result: Result<Value, Failure>) -> Map<String, Value> {
    let mut line = Map::new();
    match result {
        Ok(value) => {
            line.insert("ok".into(), true.into());
            line.insert(
                "result".into(),
                if value.is_null() { json!({}) } else { value },
            );
        }
        Err(failure) => {
            let (code, message) = match &failure {
                Failure::Service(ServiceError::McpError(e)) => {
                    (Some(e.code.0), failure_text(&failure))
                }
                Failure::Initialize(ClientInitializeError::JsonRpcError(e)) => {
                    (Some(e.code.0), failure_text(&failure))
                }
                _ => (None, failure_text(&failure)),
            };
            let mut error = Map::new();
            if let Some(code) = code {
                error.insert("code".into(), code.into());
            }
            error.insert("message".into(), message.into());
            line.insert("ok".into(), false.into());
            line.insert("error".into(), error.into());
        }
    }
    line
}

fn failure_text(failure: &Failure) -> String {
    match failure {
        Failure::Service(e) => e.to_string(),
        Failure::Initialize(e) => e.to_string(),
        Failure::Other(e) => e.clone(),
    }
}

fn to_json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// `timeout_ms` (contract v1.1) is the request's own timeout, rmcp's `PeerRequestOptions`;
/// without it the SDK's default (none).
fn request_options(step: &Map<String, Value>) -> Option<PeerRequestOptions> {
    let ms = step.get("timeout_ms").and_then(Value::as_u64)?;
    Some(PeerRequestOptions::with_timeout(Duration::from_millis(ms)))
}

async fn call_tool(peer: Peer<RoleClient>, step: Map<String, Value>) -> Result<Value, Failure> {
    let name = step
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let arguments: JsonObject = step
        .get("arguments")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let params = CallToolRequestParams::new(name).with_arguments(arguments);
    let Some(options) = request_options(&step) else {
        return peer
            .call_tool(params)
            .await
            .map(to_json)
            .map_err(Failure::Service);
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    match send_with_options(&peer, request, options).await? {
        ServerResult::CallToolResult(result) => Ok(to_json(result)),
        _ => Err(Failure::Service(ServiceError::UnexpectedResponse)),
    }
}

async fn send_with_options(
    peer: &Peer<RoleClient>,
    request: ClientRequest,
    options: PeerRequestOptions,
) -> Result<ServerResult, Failure> {
    let handle = peer
        .send_request_with_option(request, options)
        .await
        .map_err(Failure::Service)?;
    handle.await_response().await.map_err(Failure::Service)
}

struct Driver {
    invocation: Invocation,
    client: Option<Client>,
}

impl Driver {
    async fn connect(&mut self) -> Result<Value, Failure> {
        let version: ProtocolVersion =
            serde_json::from_value(json!(self.invocation.protocol_version))
                .map_err(|e| Failure::Other(e.to_string()))?;
        // A revision with a handshake: `initialize` offering it. A later one (2026-07-28):
        // rmcp's `Auto`, server/discover first, then `initialize` at the latest handshake
        // revision if the server is a legacy one.
        let lifecycle = if version.has_initialize() {
            ClientLifecycleMode::Initialize
        } else {
            ClientLifecycleMode::Auto {
                preferred_versions: vec![version.clone()],
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            }
        };
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("mcp-ping-conformance-rust-sdk-driver", "0.1.0"),
        )
        .with_protocol_version(version);
        let client = if self.invocation.transport == "stdio" {
            let words = &self.invocation.command;
            let mut command = tokio::process::Command::new(&words[0]);
            command.args(&words[1..]);
            // rmcp pipes stdin and stdout and lets the server's stderr through (inherit): it
            // becomes the case's client.stderr.
            let transport =
                TokioChildProcess::new(command).map_err(|e| Failure::Other(e.to_string()))?;
            info.serve_with_lifecycle(transport, lifecycle).await
        } else {
            let transport = StreamableHttpClientTransport::from_uri(self.invocation.url.as_str());
            info.serve_with_lifecycle(transport, lifecycle).await
        }
        .map_err(Failure::Initialize)?;
        let peer_info = client.peer_info().map(|info| to_json(&*info));
        self.client = Some(client);
        Ok(peer_info.unwrap_or_default())
    }

    async fn run(&mut self, step: &Map<String, Value>) -> Result<Value, Failure> {
        let op = step["op"].as_str().unwrap_or_default();
        match op {
            "connect" => return self.connect().await,
            "idle" => {
                let ms = step.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                return Ok(Value::Null);
            }
            _ => {}
        }
        let Some(client) = self.client.as_mut() else {
            return Err(Failure::Other("not connected".into()));
        };
        let peer = client.peer().clone();
        match op {
            "call_tool" => call_tool(peer, step.clone()).await,
            "call_tools_concurrently" => {
                // One task per call, all in flight at once; each settles into its own entry.
                let calls = step
                    .get("calls")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let tasks: Vec<_> = calls
                    .into_iter()
                    .map(|call| {
                        tokio::spawn(call_tool(
                            peer.clone(),
                            call.as_object().cloned().unwrap_or_default(),
                        ))
                    })
                    .collect();
                let mut entries = Vec::new();
                for task in tasks {
                    let result = task
                        .await
                        .unwrap_or_else(|e| Err(Failure::Other(e.to_string())));
                    entries.push(Value::Object(outcome(result)));
                }
                Ok(json!({ "calls": entries }))
            }
            "list_tools" => match request_options(step) {
                None => peer
                    .list_tools(None)
                    .await
                    .map(to_json)
                    .map_err(Failure::Service),
                Some(options) => {
                    let request = ClientRequest::ListToolsRequest(Default::default());
                    match send_with_options(&peer, request, options).await? {
                        ServerResult::ListToolsResult(result) => Ok(to_json(result)),
                        _ => Err(Failure::Service(ServiceError::UnexpectedResponse)),
                    }
                }
            },
            "ping" => {
                // rmcp has no ping method on the client's Peer; a ping is its ClientRequest
                // variant sent through the Peer's public request API.
                let options = request_options(step).unwrap_or_else(PeerRequestOptions::no_options);
                let request = ClientRequest::PingRequest(PingRequest::default());
                match send_with_options(&peer, request, options).await? {
                    ServerResult::EmptyResult(_) => Ok(Value::Null),
                    other => Err(Failure::Other(format!(
                        "unexpected answer to ping: {other:?}"
                    ))),
                }
            }
            _ => {
                // close: rmcp's normal way, which cancels the service and closes the transport
                // (stdio: stdin closed, then the child waited for; HTTP: the session ended).
                let quit = client
                    .close()
                    .await
                    .map_err(|e| Failure::Other(e.to_string()))?;
                log!("closed: {quit:?}");
                Ok(Value::Null)
            }
        }
    }
}

#[tokio::main]
async fn main() {
    let invocation = read();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .with_ansi(false)
        .init();
    // The step lines go to a copy of stdout; fd 1 then points at stderr, so that nothing else
    // (a library's print, a child process) can reach the report.
    let report_fd = unsafe { libc::dup(1) };
    if report_fd < 0 || unsafe { libc::dup2(2, 1) } < 0 {
        refuse(
            2,
            format!("cannot set up stdout: {}", std::io::Error::last_os_error()),
        );
    }
    let mut report = unsafe { File::from_raw_fd(report_fd) };
    let steps = std::mem::take(&mut { invocation.steps.clone() });
    let mut driver = Driver {
        invocation,
        client: None,
    };
    for (i, step) in steps.iter().enumerate() {
        let result = driver.run(step).await;
        if let Err(failure) = &result {
            log!(
                "step {i} ({}) failed: {}",
                step["op"],
                failure_text(failure)
            );
        }
        let mut line = outcome(result);
        line.insert("step".into(), i.into());
        line.insert("op".into(), step["op"].clone());
        let _ = writeln!(report, "{}", Value::Object(line));
    }
    // At once: tasks or a child process the SDK left must not keep us alive.
    std::process::exit(0)
}
