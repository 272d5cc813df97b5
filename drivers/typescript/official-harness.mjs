#!/usr/bin/env node
// A client harness for the official MCP conformance suite
// (https://github.com/modelcontextprotocol/conformance), written the way SDKs write theirs,
// for the TypeScript SDK pinned in package.json. It knows nothing of mcp-ping-conformance:
// `mcp-ping-conformance run --harness official -- node official-harness.mjs` runs it
// unchanged (docs/official-harness.md).
//
//   MCP_CONFORMANCE_SCENARIO=initialize node official-harness.mjs <server-url>
//
// The server URL is the last argument; the scenario comes from MCP_CONFORMANCE_SCENARIO.
// Exit status: 0 when the scenario completed, 1 on any error or an unknown scenario.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const log = (...args) => console.error('[official-harness]', ...args);

async function connected(serverUrl) {
  const client = new Client({ name: 'mcp-ping-conformance-official-harness', version: '0.1.0' }, { capabilities: {} });
  client.onerror = (error) => log('client.onerror:', error?.message ?? error);
  const transport = new StreamableHTTPClientTransport(new URL(serverUrl));
  await client.connect(transport);
  log('connected to', client.getServerVersion()?.name ?? 'a server without serverInfo');
  return { client, transport };
}

// initialize: connect, list tools, close.
async function initialize(serverUrl) {
  const { client, transport } = await connected(serverUrl);
  const { tools } = await client.listTools();
  log(`listed ${tools.length} tool(s)`);
  await transport.close();
}

// tools_call: connect, list tools, call add_numbers when the server offers it, close.
async function toolsCall(serverUrl) {
  const { client, transport } = await connected(serverUrl);
  const { tools } = await client.listTools();
  if (tools.some((tool) => tool.name === 'add_numbers')) {
    const result = await client.callTool({ name: 'add_numbers', arguments: { a: 5, b: 3 } });
    log('add_numbers returned', JSON.stringify(result));
  }
  await transport.close();
}

const scenarios = { initialize, tools_call: toolsCall, 'tools-call': toolsCall };

const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const serverUrl = process.argv.at(-1);
if (!scenario || process.argv.length < 3) {
  log('usage: MCP_CONFORMANCE_SCENARIO=<scenario> official-harness.mjs <server-url>');
  log('scenarios:', Object.keys(scenarios).join(', '));
  process.exit(1);
}
const run = scenarios[scenario];
if (!run) {
  log(`unknown scenario ${scenario}; scenarios: ${Object.keys(scenarios).join(', ')}`);
  process.exit(1);
}
try {
  await run(serverUrl);
  process.exit(0);
} catch (error) {
  log('error:', error?.stack ?? error);
  process.exit(1);
}
