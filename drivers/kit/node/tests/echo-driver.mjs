// The echo driver of drivers/kit/tests/cases.json on the Node kit: ops that report what they
// were given, plus tool names whose errors escape every promise ('stray-exception',
// 'stray-rejection') and a result that is not JSON ('not-json').
import { runDriver } from '../mcp-conformance-driver.mjs';
import { spawn } from 'node:child_process';

class LibraryError extends Error {
  constructor(code, message) {
    super(message);
    this.rpcCode = code;
  }
}

const called = (op) => process.stderr.write(`call ${op}\n`);
const never = () => new Promise(() => {});
const echo = (step) => ({ name: step.name, arguments: step.arguments ?? {}, timeout_ms: step.timeout_ms ?? null });

// 'rendezvous' resolves only once two such calls have started: calls awaited one after
// another never get there.
let arrived = 0;
let allArrived;
const together = new Promise((resolve) => { allArrived = resolve; });
async function rendezvous(step) {
  arrived += 1;
  if (arrived >= 2) allArrived();
  let timer;
  const alone = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('rendezvous: no other call in flight')), 10000); });
  await Promise.race([together, alone]).finally(() => clearTimeout(timer));
  return echo(step);
}

const tools = {
  lost: () => never(),
  'fail-rpc': () => { throw new LibraryError(-32601, 'Method not found'); },
  'fail-plain': () => { throw new Error('plain failure'); },
  log: () => {
    console.log('noise');
    process.stdout.write('noise through process.stdout\n');
    return { logged: true };
  },
  'stray-exception': () => {
    setTimeout(() => { throw new Error('stray exception'); }, 0);
    return never();
  },
  'stray-rejection': () => {
    Promise.reject(new Error('stray rejection'));
    return never();
  },
  'not-json': () => ({ value: 1n }),
  // A child that ends only at the end of its stdin, left running.
  'spawn-child': () => {
    const child = spawn('cat', [], { stdio: ['pipe', 'ignore', 'inherit'] });
    process.stderr.write(`child ${child.pid}\n`);
    return { spawned: true };
  },
  rendezvous,
};

await runDriver({
  transports: ['stdio', 'streamable-http'],
  ops: {
    connect: async (ctx) => {
      called('connect');
      const { transport, protocolVersion, serverCommand, serverUrl, args } = ctx;
      return { transport, protocol_version: protocolVersion, server_command: serverCommand, server_url: serverUrl, args };
    },
    call_tool: (step) => {
      called('call_tool');
      const tool = tools[step.name];
      return tool ? tool(step) : echo(step);
    },
    ping: async (step) => {
      called('ping');
      return { timeout_ms: step.timeout_ms ?? null };
    },
    close: () => { called('close'); },
  },
  errorCode: (error) => error.rpcCode,
});
