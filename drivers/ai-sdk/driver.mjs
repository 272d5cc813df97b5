// mcp-ping-conformance driver (contract v1.3, docs/driver-contract.md) for the Vercel AI SDK's
// MCP client, @ai-sdk/mcp (docs/clients/ai-sdk.md). Built on the Node.js driver kit, which does
// the plumbing: refusals, validation, the step loop, one JSON line per step, a clean stdout.
//
//   node drivers/ai-sdk/driver.mjs [--protocol-discovery] [server-url]
//
// The library has no client-side ping() (MCPClient offers tools, resources, prompts and
// completions), so the op `ping` is left out and the client-ping cases are UNSUPPORTED. It
// answers the server's pings itself.
import { runDriver } from '../kit/node/mcp-conformance-driver.mjs'; // first: stdout is the report's
import { createMCPClient, MCPClientError } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

const NAME = 'ai-sdk-driver';
// The two revisions the library can be made to offer: initialize with its latest legacy
// revision when discovery is off, server/discover with its latest when on (the default).
const LEGACY_REVISION = '2025-11-25';
const DISCOVERY_REVISION = '2026-07-28';

// The library probes with `server/discover` (revision 2026-07-28) before falling back to
// `initialize`. An application that talks to a server of an earlier revision turns the probe
// off (`protocolVersionDiscovery: false`), and so does the driver when the suite asks for an
// earlier revision, unless --protocol-discovery keeps the library's default.
function wantsDiscovery(ctx) {
  if (ctx.args.includes('--protocol-discovery')) return true;
  if (ctx.protocolVersion === DISCOVERY_REVISION) return true;
  if (ctx.protocolVersion !== LEGACY_REVISION) {
    console.error(`${NAME}: the library cannot offer ${ctx.protocolVersion}; it offers ${LEGACY_REVISION} in initialize`);
  }
  return false;
}

function makeTransport({ transport, serverCommand: [command, ...args], serverUrl }) {
  // stderr: the library's default, 'inherit', sends the server's stderr to the driver's.
  if (transport === 'stdio') return new StdioMCPTransport({ command, args });
  return { type: transport === 'sse' ? 'sse' : 'http', url: serverUrl };
}

// The library's per-request option is `options: { timeout }` (milliseconds); without it a
// request waits for as long as the connection lives.
const requestOptions = (step) => (step.timeout_ms ? { timeout: step.timeout_ms } : undefined);

// The message, and the cause's (undici's "fetch failed" says why only there).
const describeError = (error) => [error?.message ?? error, error?.cause?.message].filter(Boolean).join(': ');

let client;
await runDriver({
  name: NAME,
  ops: {
    async connect(ctx) {
      client = await createMCPClient({
        transport: makeTransport(ctx),
        protocolVersionDiscovery: wantsDiscovery(ctx),
        // Errors the library cannot hand to a caller (dropped frames, transport errors).
        onUncaughtError: (error) => console.error(`${NAME}: onUncaughtError:`, describeError(error)),
      });
      return client.initializeResult ?? {};
    },
    call_tool: (step) => client.callTool({ name: step.name, arguments: step.arguments ?? {}, options: requestOptions(step) }),
    list_tools: (step) => client.listTools({ options: requestOptions(step) }),
    close: () => client.close(),
  },
  errorCode: (error) => (MCPClientError.isInstance(error) && Number.isInteger(error.code) ? error.code : undefined),
  // In a session (contract v1.3) the next case must not find this one's client.
  endCase: () => { client = undefined; },
});
