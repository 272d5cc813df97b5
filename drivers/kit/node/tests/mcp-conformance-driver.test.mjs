// Tests of the Node driver kit: the shared cases of drivers/kit/tests/cases.json against
// echo-driver.mjs, then what is particular to Node (errors that escape every promise, results
// that are not JSON). Run: node --test drivers/kit/node/tests/
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import process from 'node:process';
import test from 'node:test';

const echoDriver = new URL('./echo-driver.mjs', import.meta.url).pathname;
const { cases, sessions } = JSON.parse(readFileSync(new URL('../../tests/cases.json', import.meta.url), 'utf8'));

function runEchoDriver(context, transport = 'stdio', args = [], timeout = 60000, session = false) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MCP_CONFORMANCE_')));
  if (session) env.MCP_CONFORMANCE_SESSION = '1';
  env.MCP_CONFORMANCE_PROTOCOL_VERSION = '2025-11-25';
  if (transport !== null) env.MCP_CONFORMANCE_TRANSPORT = transport;
  if (context !== null) env.MCP_CONFORMANCE_CONTEXT = typeof context === 'string' ? context : JSON.stringify(context);
  const started = process.hrtime.bigint();
  const done = spawnSync(process.execPath, [echoDriver, ...args], { env, encoding: 'utf8', timeout });
  return { ...done, wallMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

// Every line must be one JSON value: a stray log line fails here.
const stepLines = (stdout) => stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));

for (const c of cases) {
  test(c.name, () => {
    const done = runEchoDriver(c.context, c.transport === undefined ? 'stdio' : c.transport, c.args ?? [], 60000, c.session);
    assert.equal(done.status, c.exit, done.stderr);
    assert.deepEqual(stepLines(done.stdout), c.stdout ?? [], done.stderr);
    for (const text of c.stderr ?? []) assert.ok(done.stderr.includes(text), `no "${text}" in stderr:\n${done.stderr}`);
    if (c.calls) {
      const calls = done.stderr.split('\n').filter((line) => line.startsWith('call ')).map((line) => line.slice(5));
      assert.deepEqual(calls, c.calls, done.stderr);
    }
    assert.ok(done.wallMs >= (c.min_wall_ms ?? 0), `took ${done.wallMs} ms`);
  });
}

// A session (contract v1.3): one request per line on stdin, then the end of stdin.
for (const s of sessions) {
  test(`session: ${s.name}`, () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MCP_CONFORMANCE_')));
    env.MCP_CONFORMANCE_SESSION = '1';
    const input = s.requests.map((r, i) => `${JSON.stringify({
      case: i + 1,
      env: {
        MCP_CONFORMANCE_TRANSPORT: r.transport,
        MCP_CONFORMANCE_PROTOCOL_VERSION: '2025-11-25',
        MCP_CONFORMANCE_CONTEXT: typeof r.context === 'string' ? r.context : JSON.stringify(r.context),
      },
      args: r.args ?? [],
    })}\n`).join('');
    const done = spawnSync(process.execPath, [echoDriver], { env, input, encoding: 'utf8', timeout: 60000 });
    assert.equal(done.status, s.exit, done.stderr);
    assert.deepEqual(stepLines(done.stdout), s.stdout, done.stderr);
    let from = 0;
    for (const text of s.stderr) {
      const at = done.stderr.indexOf(text, from);
      assert.ok(at >= 0, `no "${text}" (in order) in stderr:\n${done.stderr}`);
      from = at + text.length;
    }
    if (s.children_gone) {
      const pids = [...done.stderr.matchAll(/^child (\d+)$/gm)].map((m) => m[1]);
      assert.ok(pids.length > 0, done.stderr);
      for (const pid of pids) assert.ok(!existsSync(`/proc/${pid}`), `child ${pid} still there`);
    }
  });
}

const server = { command: ['/bin/false'] };

for (const kind of ['exception', 'rejection']) {
  test(`an uncaught ${kind} during a step fails that step, and the next steps run`, () => {
    const steps = [{ op: 'call_tool', name: `stray-${kind}` }, { op: 'ping', timeout_ms: 5 }];
    const done = runEchoDriver({ server, steps });
    assert.equal(done.status, 0, done.stderr);
    assert.deepEqual(stepLines(done.stdout), [
      { step: 0, op: 'call_tool', ok: false, error: { message: `stray ${kind}` } },
      { step: 1, op: 'ping', ok: true, result: { timeout_ms: 5 } },
    ]);
  });
}

// Regression: a library promise that never settles left nothing on the event loop, so Node
// exited 13 and the suite reported a crash instead of the hung call it was. The driver must
// stay until it is stopped (here by spawnSync's bound, the case deadline in a real run).
test('a call that never returns holds the driver until it is stopped, not exit 13', () => {
  const done = runEchoDriver({ server, steps: [{ op: 'call_tool', name: 'lost' }] }, 'stdio', [], 1500);
  assert.equal(done.status, null, `exited by itself with ${done.status}: ${done.stderr}`);
  assert.equal(done.signal, 'SIGTERM');
  assert.equal(done.stdout, '');
});

test('a result that is not JSON fails its step only', () => {
  const done = runEchoDriver({ server, steps: [{ op: 'call_tool', name: 'not-json' }, { op: 'close' }] });
  assert.equal(done.status, 0, done.stderr);
  const lines = stepLines(done.stdout);
  assert.equal(lines.length, 2);
  assert.equal(lines[0].ok, false);
  assert.match(lines[0].error.message, /BigInt/);
  assert.deepEqual(lines[1], { step: 1, op: 'close', ok: true, result: {} });
});

test('a misspelt op is refused before anything runs', () => {
  const kit = new URL('../mcp-conformance-driver.mjs', import.meta.url).href;
  const code = `import { runDriver } from '${kit}'; await runDriver({ ops: { 'call-tool': () => 1 } });`;
  const done = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60000 });
  assert.equal(done.status, 1);
  assert.equal(done.stdout, '');
  assert.match(done.stderr, /runDriver: no such op call-tool/);
});
