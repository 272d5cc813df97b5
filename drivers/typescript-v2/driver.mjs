#!/usr/bin/env node
// Driver (contract v1.2, docs/driver-contract.md) for the TypeScript MCP SDK's v2 client,
// @modelcontextprotocol/client (docs/clients/typescript-v2.md), on the Node driver kit
// (drivers/kit/README.md). It uses only the package's public client API.
//
//   node drivers/typescript-v2/driver.mjs [server-url]
// The kit first: it sends console output to stderr before the SDK and its dependencies load.
import { runDriver } from '../kit/node/mcp-conformance-driver.mjs';
import {
  Client,
  ProtocolError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const NAME = 'ts-v2-driver';
const log = (...args) => console.error(`${NAME}:`, ...args);
// The first modern revision: the client reaches it only through version negotiation.
const MODERN_REVISION = '2026-07-28';

function makeTransport({ transport, serverCommand: [command, ...args], serverUrl }) {
  // 'inherit' (the default, said out loud): the server's stderr goes straight to our stderr.
  if (transport === 'stdio') return new StdioClientTransport({ command, args, stderr: 'inherit' });
  return transport === 'sse' ? new SSEClientTransport(new URL(serverUrl)) : new StreamableHTTPClientTransport(new URL(serverUrl));
}

// The revision the suite asks for, through the client's public options: a legacy revision it
// knows goes first in `supportedProtocolVersions` (the first legacy entry is what initialize
// offers); 2026-07-28 and later turn on version negotiation ('auto': server/discover, with
// the initialize fallback). Anything else: the defaults (initialize offering 2025-11-25).
function versionOptions(revision) {
  if (revision >= MODERN_REVISION) {
    return { supportedProtocolVersions: [revision, ...SUPPORTED_PROTOCOL_VERSIONS], versionNegotiation: { mode: 'auto' } };
  }
  if (SUPPORTED_PROTOCOL_VERSIONS.includes(revision)) {
    return { supportedProtocolVersions: [revision, ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== revision)] };
  }
  log(`asked to offer ${revision}, which the client does not know; it offers ${SUPPORTED_PROTOCOL_VERSIONS[0]}`);
  return {};
}

// call_tools_concurrently (v1.2) is the kit's: it starts call_tool for every call at once.
// A step's timeout_ms (contract v1.1) is the request's own timeout, as an application sets
// one; otherwise the client's default (DEFAULT_REQUEST_TIMEOUT_MSEC, 60 s) applies.
const options = (step) => (step.timeout_ms ? { timeout: step.timeout_ms } : undefined);

let client;
await runDriver({
  name: NAME,
  ops: {
    async connect(ctx) {
      client = new Client(
        { name: 'mcp-ping-conformance-typescript-v2-driver', version: '0.1.0' },
        { capabilities: {}, ...versionOptions(ctx.protocolVersion) },
      );
      // Errors the client hands to no caller (bad frames, unknown ids, failed pong writes).
      client.onerror = (error) => log('client.onerror:', error?.message ?? error);
      await client.connect(makeTransport(ctx));
      return { serverInfo: client.getServerVersion() ?? null, capabilities: client.getServerCapabilities() ?? {} };
    },
    call_tool: (step) => client.callTool({ name: step.name, arguments: step.arguments ?? {} }, options(step)),
    list_tools: (step) => client.listTools(undefined, options(step)),
    ping: (step) => client.ping(options(step)),
    close: () => client.close(),
  },
  // ProtocolError carries the JSON-RPC code; SdkError's codes are strings (REQUEST_TIMEOUT,
  // CONNECTION_CLOSED), local errors with no JSON-RPC code, reported by message only.
  errorCode: (error) => (ProtocolError.isInstance(error) ? error.code : undefined),
});
