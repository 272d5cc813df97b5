#!/usr/bin/env node
// Driver (contract v1.1, docs/driver-contract.md) for the TypeScript MCP SDK client,
// @modelcontextprotocol/sdk. It uses only the SDK's public client API.
//
//   node drivers/typescript/driver.mjs [server-url]
//
// stdout carries one JSON line per step and nothing else; all logging goes to stderr.
import { Console } from 'node:console';
import process from 'node:process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';

// Any console output (ours, the SDK's, a dependency's) goes to stderr: stdout is the report.
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
const log = (...args) => console.error('[ts-driver]', ...args);

const UNSUPPORTED = 127;
const OPS = new Set(['connect', 'call_tool', 'list_tools', 'ping', 'idle', 'close']);
const TRANSPORTS = new Set(['stdio', 'streamable-http', 'sse']);

const transportName = process.env.MCP_CONFORMANCE_TRANSPORT ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
const steps = Array.isArray(context.steps) ? context.steps : [];

// Refuse what we cannot do before touching the library (the suite's pre-check relies on it).
if (!TRANSPORTS.has(transportName)) {
  log(`unsupported transport "${transportName}"`);
  process.exit(UNSUPPORTED);
}
const unknown = steps.find((step) => !OPS.has(step?.op));
if (unknown) {
  log(`unsupported op ${JSON.stringify(unknown?.op)}`);
  process.exit(UNSUPPORTED);
}

// The SDK always offers LATEST_PROTOCOL_VERSION in initialize; there is no public option to
// offer another revision, so the requested one can only be reported here.
const wanted = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
if (wanted && wanted !== LATEST_PROTOCOL_VERSION) {
  log(`asked to offer ${wanted}; the SDK offers ${LATEST_PROTOCOL_VERSION} and accepts what the server picks`);
}

function makeTransport() {
  if (transportName === 'stdio') {
    const [command, ...args] = context.server?.command ?? [];
    // 'inherit': the server's stderr goes straight to our stderr (never to our stdout).
    return new StdioClientTransport({ command, args, stderr: 'inherit' });
  }
  const url = new URL(context.server?.url ?? process.argv[2]);
  return transportName === 'sse' ? new SSEClientTransport(url) : new StreamableHTTPClientTransport(url);
}

// A step's timeout_ms (contract v1.1) is the request's own timeout, as an application sets
// one; otherwise the SDK's default applies.
const options = (step) => (Number.isInteger(step.timeout_ms) ? { timeout: step.timeout_ms } : undefined);

let client;
const run = {
  async connect() {
    client = new Client({ name: 'mcp-ping-conformance-typescript-driver', version: '0.1.0' }, { capabilities: {} });
    // Errors the SDK does not hand to a caller (bad lines, unknown ids, EPIPE) are evidence.
    client.onerror = (error) => log('client.onerror:', error?.message ?? error);
    await client.connect(makeTransport());
    return { serverInfo: client.getServerVersion() ?? null, capabilities: client.getServerCapabilities() ?? {} };
  },
  call_tool: (step) => client.callTool({ name: step.name, arguments: step.arguments ?? {} }, undefined, options(step)),
  list_tools: (step) => client.listTools(undefined, options(step)),
  ping: (step) => client.ping(options(step)),
  idle: (step) => new Promise((resolve) => setTimeout(() => resolve({}), Number(step.ms) || 0)),
  close: () => client.close(),
};

// An exception the SDK throws outside any awaited promise must not kill the driver: it fails
// the step in progress instead (and is logged).
let failCurrentStep = null;
for (const event of ['unhandledRejection', 'uncaughtException']) {
  process.on(event, (error) => {
    log(`${event}:`, error?.stack ?? error);
    failCurrentStep?.(error);
  });
}

function describe(error) {
  const out = {};
  if (error instanceof McpError && Number.isInteger(error.code)) out.code = error.code;
  out.message = error?.message ?? String(error);
  return out;
}

for (const [index, step] of steps.entries()) {
  let line;
  const fault = new Promise((_, reject) => { failCurrentStep = reject; });
  try {
    const result = await Promise.race([run[step.op](step), fault]);
    line = { step: index, op: step.op, ok: true, result: result ?? {} };
  } catch (error) {
    log(`step ${index} (${step.op}) failed:`, error?.stack ?? error);
    line = { step: index, op: step.op, ok: false, error: describe(error) };
  }
  failCurrentStep = null;
  process.stdout.write(JSON.stringify(line) + '\n');
}

// Exit explicitly once stdout is flushed: timers or sockets the SDK left behind must not keep
// the process alive.
process.stdout.write('', () => process.exit(0));
