// The plumbing of an mcp-ping-conformance driver (driver contract v1.3,
// docs/driver-contract.md) for Node.js, without dependencies. A driver supplies one function
// per op, the part specific to its client library, and hands over:
//
//   import { runDriver } from './mcp-conformance-driver.mjs';   // before the library
//   await runDriver({ ops: { connect: async (ctx) => ..., ping: (step) => ... }, errorCode });
//
// Importing it sends all console output and other stdout writes to stderr, so import it
// before the client library. runDriver() reads the environment, exits 127 for a transport or
// op the driver has no function for before any op runs, 2 for a malformed context, runs the
// steps in order (idle is a timer, so the library's own work goes on; call_tools_concurrently
// starts call_tool for every call, then awaits them all), prints one JSON line per step on
// stdout, and exits 0 once they are flushed. Asked for a session (MCP_CONFORMANCE_SESSION=1,
// contract v1.3), it runs case after case from its stdin in this one process, each with what
// the cases before it left behind (sockets, child processes, timers) gone. drivers/kit/README.md.
import { ChildProcess } from 'node:child_process';
import { Console } from 'node:console';
import net from 'node:net';
import readline from 'node:readline';
import path from 'node:path';
import process from 'node:process';

export const UNSUPPORTED = 127;
export const MALFORMED = 2;
const KNOWN_OPS = new Set(['connect', 'call_tool', 'list_tools', 'ping', 'idle', 'close']);
// The kit's own ops, and the driver function each needs.
const KIT_OPS = { idle: null, call_tools_concurrently: 'call_tool' };
// Sessions (contract v1.3): the first line on stdout, the variables each case sets, and how
// long a case's child processes get to end by themselves once their pipes are closed.
const SESSION_HELLO = '{"driver_sessions":1}';
const CASE_VARIABLES = ['MCP_CONFORMANCE_SCENARIO', 'MCP_CONFORMANCE_TRANSPORT', 'MCP_CONFORMANCE_PROTOCOL_VERSION', 'MCP_CONFORMANCE_CONTEXT'];
const CHILD_GRACE_MS = 2000;

// stdout is the report: the step lines go through the one saved writer, everything else
// (console, a library's process.stdout.write) to stderr.
const writeReport = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

// The timers made during a session's case, cleared at its end: a library's retry or timeout
// timer of one case must not fire in the next.
const caseTimers = new Set();
for (const [make, clear] of [['setTimeout', 'clearTimeout'], ['setInterval', 'clearInterval']]) {
  const original = globalThis[make];
  globalThis[make] = function trackedTimer(...args) {
    const timer = original.apply(this, args);
    caseTimers.add(timer);
    return timer;
  };
  const originalClear = globalThis[clear];
  globalThis[clear] = function trackedClear(timer) {
    caseTimers.delete(timer);
    return originalClear.call(this, timer);
  };
}

// The sockets a case connected, destroyed at its end: an HTTP library's idle keep-alive
// sockets are unreferenced, so the list of active handles misses them, and a server the suite
// stops would wait for them.
const caseSockets = new Set();
const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function trackedConnect(...args) {
  caseSockets.add(this);
  this.once('close', () => caseSockets.delete(this));
  return originalConnect.apply(this, args);
};

// Ends the run before any step: the exit status and why.
class Refusal extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const malformed = (message) => new Refusal(MALFORMED, `malformed MCP_CONFORMANCE_CONTEXT: ${message}`);

function requireEnv(variable, env) {
  const value = env[variable];
  if (!value) throw new Refusal(MALFORMED, `${variable} is not set`);
  return value;
}

const isInteger = (value, least) => Number.isSafeInteger(value) && value >= least;

// call_tools_concurrently: `calls`, at least two objects shaped like call_tool steps.
function checkCalls(calls, where, isObject) {
  if (!Array.isArray(calls) || calls.length < 2) {
    throw malformed(`${where}: call_tools_concurrently needs 'calls', an array of at least 2 calls`);
  }
  calls.forEach((call, j) => {
    if (!isObject(call) || typeof call.name !== 'string') throw malformed(`${where}: calls[${j}] needs a string 'name'`);
    if ('arguments' in call && !isObject(call.arguments)) throw malformed(`${where}: calls[${j}] 'arguments' must be an object`);
  });
}

// Every op is checked before any shape, so that an unsupported op wins over a malformed one.
function checkSteps(context, ops) {
  if (context === null || typeof context !== 'object' || Array.isArray(context)) throw malformed('not a JSON object');
  const { steps } = context;
  if (!Array.isArray(steps)) throw malformed("'steps' must be an array");
  steps.forEach((step, i) => {
    if (step === null || typeof step !== 'object' || Array.isArray(step) || typeof step.op !== 'string') {
      throw malformed(`steps[${i}] must be an object with a string 'op'`);
    }
    const needs = step.op in KIT_OPS ? KIT_OPS[step.op] : KNOWN_OPS.has(step.op) && step.op;
    if (needs !== null && typeof ops[needs] !== 'function') {
      throw new Refusal(UNSUPPORTED, `steps[${i}]: unsupported op '${step.op}'`);
    }
  });
  steps.forEach((step, i) => {
    const where = `steps[${i}]`;
    const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
    if (step.op === 'call_tool' && typeof step.name !== 'string') throw malformed(`${where}: call_tool needs a string 'name'`);
    if (step.op === 'call_tool' && 'arguments' in step && !isObject(step.arguments)) {
      throw malformed(`${where}: call_tool 'arguments' must be an object`);
    }
    if (step.op === 'call_tools_concurrently') checkCalls(step.calls, where, isObject);
    if (step.op === 'idle' && !isInteger(step.ms, 0)) throw malformed(`${where}: idle needs a non-negative integer 'ms'`);
    if ('timeout_ms' in step && !isInteger(step.timeout_ms, 1)) throw malformed(`${where}: 'timeout_ms' must be a positive integer`);
  });
  return steps;
}

// The HTTP server URL is appended as the last argument; a last argument that is no URL is
// one of the driver's own (a run by hand), and server.url is used instead.
function locateServer(ctx) {
  const { server } = ctx.context;
  if (server === null || typeof server !== 'object' || Array.isArray(server)) throw malformed("'server' must be an object");
  if (ctx.transport === 'stdio') {
    const { command } = server;
    if (!Array.isArray(command) || command.length === 0) throw malformed("stdio needs 'server.command', a non-empty array of strings");
    if (!command.every((word) => typeof word === 'string')) throw malformed("'server.command' must contain only strings");
    ctx.serverCommand = command;
  } else if (ctx.args.length > 0 && ctx.args.at(-1).includes('://')) {
    ctx.serverUrl = ctx.args.pop();
  } else if (typeof server.url === 'string') {
    ctx.serverUrl = server.url;
  } else {
    throw malformed("HTTP transports need the server URL (last argument or 'server.url')");
  }
}

function readInvocation(transports, ops, env, args) {
  const transport = requireEnv('MCP_CONFORMANCE_TRANSPORT', env);
  if (!transports.includes(transport)) throw new Refusal(UNSUPPORTED, `transport '${transport}' is not supported`);
  const protocolVersion = requireEnv('MCP_CONFORMANCE_PROTOCOL_VERSION', env);
  let context;
  try {
    context = JSON.parse(requireEnv('MCP_CONFORMANCE_CONTEXT', env));
  } catch (error) {
    if (error instanceof Refusal) throw error;
    throw malformed('not valid JSON');
  }
  const steps = checkSteps(context, ops);
  const ctx = { transport, protocolVersion, serverCommand: [], serverUrl: '', args, context };
  locateServer(ctx);
  return { ctx, steps };
}

// The error as the contract reports it: `code` only when errorCode finds a JSON-RPC code.
function describe(error, errorCode) {
  const out = {};
  const code = error == null ? undefined : errorCode(error);
  if (Number.isInteger(code)) out.code = code;
  out.message = error?.message ?? String(error);
  return out;
}

// Destroys what a case left open (sockets, idle ones included, the pipes of child processes),
// waits up to `graceMs` for its child processes to end (a stdio server ends at the end of its
// stdin), kills those still running, and clears its timers: the next case starts from nothing
// of it.
async function endOfCase(graceMs) {
  const keep = new Set([process.stdin, process.stdout, process.stderr]);
  const children = new Set();
  // Three rounds: what the library does when its sockets close (a reconnection timer, a new
  // connection) happens in the turns of the event loop that follow.
  for (let round = 0; round < 3; round += 1) {
    for (const handle of process._getActiveHandles()) {
      if (keep.has(handle)) continue;
      if (handle instanceof ChildProcess) children.add(handle);
      else if (typeof handle?.destroy === 'function') handle.destroy();
      else if (typeof handle?.close === 'function') handle.close();
    }
    for (const socket of caseSockets) socket.destroy();
    caseSockets.clear();
    for (const timer of caseTimers) clearTimeout(timer);
    caseTimers.clear();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const running = (child) => child.exitCode === null && child.signalCode === null;
  await Promise.all([...children].filter(running).map((child) => new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => { clearTimeout(kill); resolve(); });
    if (!running(child)) { clearTimeout(kill); resolve(); }
  })));
  caseTimers.clear();
}

export async function runDriver({
  ops,
  transports = ['stdio', 'streamable-http', 'sse'],
  errorCode = () => undefined,
  name = path.basename(process.argv[1] ?? 'driver'),
  endCase = () => {},
}) {
  const unknown = Object.keys(ops).filter((op) => op in KIT_OPS || !KNOWN_OPS.has(op));
  if (unknown.length > 0) throw new TypeError(`runDriver: no such op ${unknown.join(', ')} (idle and call_tools_concurrently are the kit's)`);
  const log = (...args) => console.error(`${name}:`, ...args);

  // An exception the library throws outside any awaited promise must not kill the driver: it
  // fails the step in progress instead (and is logged).
  let failCurrentStep = null;
  for (const event of ['unhandledRejection', 'uncaughtException']) {
    process.on(event, (error) => {
      log(`${event}:`, error?.stack ?? error);
      failCurrentStep?.(error);
    });
  }
  // Every call starts before any is awaited; each settles into its own entry, in order.
  const runCalls = async (ctx, index, calls) => {
    const settled = await Promise.allSettled(calls.map(async (call) => ops.call_tool({ op: 'call_tool', ...call }, ctx)));
    return {
      calls: settled.map((outcome, j) => {
        if (outcome.status === 'fulfilled') return { ok: true, result: outcome.value ?? {} };
        log(`step ${index} (call_tools_concurrently calls[${j}]) failed:`, outcome.reason?.stack ?? outcome.reason);
        return { ok: false, error: describe(outcome.reason, errorCode) };
      }),
    };
  };
  const runStep = async (ctx, step, index) => {
    if (step.op === 'call_tools_concurrently') return runCalls(ctx, index, step.calls);
    if (step.op === 'idle') return new Promise((resolve) => setTimeout(() => resolve({}), step.ms));
    return step.op === 'connect' ? ops.connect(ctx, step) : ops[step.op](step, ctx);
  };

  // One case: its exit status (127 or 2 before any op; 0 once every step has its line).
  const runCase = async (env, args) => {
    let invocation;
    try {
      invocation = readInvocation(transports, ops, env, args);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      log(error.message);
      return error.status;
    }
    const { ctx, steps } = invocation;
    for (const [index, step] of steps.entries()) {
      let line;
      const fault = new Promise((_, reject) => { failCurrentStep = reject; });
      // A library promise that never settles, with nothing left on the event loop, would make
      // Node exit 13 ("unsettled top-level await") and read as a crash; held open, the step is
      // what it is, a call that never returned, and the suite reports the hang.
      const holdOpen = setInterval(() => {}, 1 << 30);
      try {
        const result = await Promise.race([runStep(ctx, step, index), fault]);
        line = JSON.stringify({ step: index, op: step.op, ok: true, result: result ?? {} });
      } catch (error) {
        log(`step ${index} (${step.op}) failed:`, error?.stack ?? error);
        line = JSON.stringify({ step: index, op: step.op, ok: false, error: describe(error, errorCode) });
      }
      clearInterval(holdOpen);
      failCurrentStep = null;
      writeReport(line + '\n');
    }
    return 0;
  };

  const session = process.env.MCP_CONFORMANCE_SESSION === '1';
  if (session) writeReport(SESSION_HELLO + '\n');
  if (!session || process.env.MCP_CONFORMANCE_CONTEXT !== undefined) {
    const status = await runCase(process.env, process.argv.slice(2));
    // Exit once stdout is flushed: timers or sockets the library left behind must not keep
    // the process alive.
    writeReport('', () => process.exit(status));
    return;
  }
  // A session: one case per line of stdin, each with its variables and the words appended to
  // the driver's arguments; the variables are set for the library too, as for a process of
  // its own.
  const own = process.argv.slice(2);
  for await (const text of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (text.trim() === '') continue;
    const request = JSON.parse(text);
    for (const variable of CASE_VARIABLES) delete process.env[variable];
    Object.assign(process.env, request.env ?? {});
    const status = await runCase(process.env, [...own, ...(request.args ?? [])]);
    try {
      await endCase();
    } catch (error) {
      log('endCase failed:', error?.stack ?? error);
    }
    await endOfCase(CHILD_GRACE_MS);
    process.stderr.write(`mcp-conformance: end of case ${request.case}\n`);
    writeReport(`${JSON.stringify({ case_end: request.case, exit: status })}\n`);
  }
  writeReport('', () => process.exit(0));
}
