#!/usr/bin/env node
// Driver (contract v1.3, docs/driver-contract.md) for the TypeScript MCP SDK client,
// @modelcontextprotocol/sdk, on the Node driver kit (drivers/kit/README.md). It uses only the
// SDK's public client API.
//
//   node drivers/typescript/driver.mjs [server-url]
// The kit first: it sends console output to stderr before the SDK and its dependencies load.
import { runDriver } from '../kit/node/mcp-conformance-driver.mjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';

const log = (...args) => console.error('[ts-driver]', ...args);

function makeTransport({ transport, serverCommand: [command, ...args], serverUrl }) {
  // 'inherit': the server's stderr goes straight to our stderr (never to our stdout).
  if (transport === 'stdio') return new StdioClientTransport({ command, args, stderr: 'inherit' });
  return transport === 'sse' ? new SSEClientTransport(new URL(serverUrl)) : new StreamableHTTPClientTransport(new URL(serverUrl));
}

// call_tools_concurrently (v1.2) is the kit's: it starts call_tool for every call at once.
// A step's timeout_ms (contract v1.1) is the request's own timeout, as an application sets
// one; otherwise the SDK's default applies.
const options = (step) => (step.timeout_ms ? { timeout: step.timeout_ms } : undefined);

let client;
await runDriver({
  name: 'ts-driver',
  ops: {
    async connect(ctx) {
      // The SDK always offers LATEST_PROTOCOL_VERSION; it has no public option to offer another.
      if (ctx.protocolVersion !== LATEST_PROTOCOL_VERSION) {
        log(`asked to offer ${ctx.protocolVersion}; the SDK offers ${LATEST_PROTOCOL_VERSION} and accepts what the server picks`);
      }
      client = new Client({ name: 'mcp-ping-conformance-typescript-driver', version: '0.1.0' }, { capabilities: {} });
      // Errors the SDK does not hand to a caller (bad lines, unknown ids, EPIPE) are evidence.
      client.onerror = (error) => log('client.onerror:', error?.message ?? error);
      await client.connect(makeTransport(ctx));
      return { serverInfo: client.getServerVersion() ?? null, capabilities: client.getServerCapabilities() ?? {} };
    },
    call_tool: (step) => client.callTool({ name: step.name, arguments: step.arguments ?? {} }, undefined, options(step)),
    list_tools: (step) => client.listTools(undefined, options(step)),
    ping: (step) => client.ping(options(step)),
    close: () => client.close(),
  },
  errorCode: (error) => (error instanceof McpError ? error.code : undefined),
  // In a session (contract v1.3) the next case must not find this one's client.
  endCase: () => { client = undefined; },
});
