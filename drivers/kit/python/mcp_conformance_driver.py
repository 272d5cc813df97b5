"""The plumbing of an mcp-ping-conformance driver (driver contract v1.3,
docs/driver-contract.md) for Python, standard library only. A driver supplies one callable
per op, the part specific to its client library, and hands over::

    from mcp_conformance_driver import run_driver
    run_driver(ops={"connect": connect, "ping": ping, ...}, error_code=error_code)

Ops may be plain functions or coroutines; all run on one asyncio event loop, so a client
created in connect is used by the later steps on the loop it was made on. run_driver() reads
the environment, exits 127 for a transport or op the driver has no callable for before any op
runs, 2 for a malformed context, runs the steps in order (idle is asyncio.sleep, so the
library's own tasks go on; call_tools_concurrently gathers one call_tool per call, plain
functions each on a thread of their own), prints one JSON line per step on stdout, sends everything else
written to stdout (print, a C extension, a child process) to stderr, and exits 0. Asked for
a session (MCP_CONFORMANCE_SESSION=1, contract v1.3), it runs case after case from its stdin,
each in a process forked from this one once the library is imported, so that no case sees
what another left behind. drivers/kit/README.md.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, NoReturn, Optional, Sequence

UNSUPPORTED = 127
MALFORMED = 2
ALL_TRANSPORTS = ("stdio", "streamable-http", "sse")
KNOWN_OPS = ("connect", "call_tool", "list_tools", "ping", "idle", "close")
# The kit's own ops, and the driver callable each needs.
KIT_OPS = {"idle": None, "call_tools_concurrently": "call_tool"}
# Sessions (contract v1.3): the first line on stdout, the variables each case sets, and how
# long the processes a case left get to end by themselves (a stdio server ends at the end of
# its stdin) before they are killed.
SESSION_HELLO = '{"driver_sessions":1}'
CASE_VARIABLES = ("MCP_CONFORMANCE_SCENARIO", "MCP_CONFORMANCE_TRANSPORT",
                  "MCP_CONFORMANCE_PROTOCOL_VERSION", "MCP_CONFORMANCE_CONTEXT")
CHILD_GRACE_S = 2.0


@dataclass
class Context:
    """What the suite asked for, as connect sees it."""

    transport: str  # "stdio", "streamable-http" or "sse"
    protocol_version: str  # the revision to offer in initialize
    context: dict  # MCP_CONFORMANCE_CONTEXT as given
    args: list  # the driver's own arguments, without the URL
    server_command: list = field(default_factory=list)  # stdio: the argv to spawn
    server_url: str = ""  # HTTP transports


class _Refusal(Exception):
    """Ends the run before any step: the exit status and why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _malformed(message: str) -> _Refusal:
    return _Refusal(MALFORMED, f"malformed MCP_CONFORMANCE_CONTEXT: {message}")


def _require_env(variable: str) -> str:
    value = os.environ.get(variable, "")
    if not value:
        raise _Refusal(MALFORMED, f"{variable} is not set")
    return value


def _is_integer(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _check_calls(calls: Any, where: str) -> None:
    # call_tools_concurrently: `calls`, at least two objects shaped like call_tool steps.
    if not isinstance(calls, list) or len(calls) < 2:
        raise _malformed(f"{where}: call_tools_concurrently needs 'calls', an array of at least 2 calls")
    for j, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise _malformed(f"{where}: calls[{j}] needs a string 'name'")
        if "arguments" in call and not isinstance(call["arguments"], dict):
            raise _malformed(f"{where}: calls[{j}] 'arguments' must be an object")


def _check_steps(context: Any, ops: Mapping[str, Callable]) -> list:
    # Every op is checked before any shape, so that an unsupported op wins over a malformed one.
    if not isinstance(context, dict):
        raise _malformed("not a JSON object")
    steps = context.get("steps")
    if not isinstance(steps, list):
        raise _malformed("'steps' must be an array")
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or not isinstance(step.get("op"), str):
            raise _malformed(f"steps[{i}] must be an object with a string 'op'")
        needs = KIT_OPS[step["op"]] if step["op"] in KIT_OPS else step["op"]
        if needs is not None and not (needs in KNOWN_OPS and callable(ops.get(needs))):
            raise _Refusal(UNSUPPORTED, f"steps[{i}]: unsupported op '{step['op']}'")
    for i, step in enumerate(steps):
        where, op = f"steps[{i}]", step["op"]
        if op == "call_tool" and not isinstance(step.get("name"), str):
            raise _malformed(f"{where}: call_tool needs a string 'name'")
        if op == "call_tool" and "arguments" in step and not isinstance(step["arguments"], dict):
            raise _malformed(f"{where}: call_tool 'arguments' must be an object")
        if op == "call_tools_concurrently":
            _check_calls(step.get("calls"), where)
        if op == "idle" and not _is_integer(step.get("ms"), 0):
            raise _malformed(f"{where}: idle needs a non-negative integer 'ms'")
        if "timeout_ms" in step and not _is_integer(step["timeout_ms"], 1):
            raise _malformed(f"{where}: 'timeout_ms' must be a positive integer")
    return steps


def _locate_server(ctx: Context) -> None:
    # The HTTP server URL is appended as the last argument; a last argument that is no URL is
    # one of the driver's own (a run by hand), and server.url is used instead.
    server = ctx.context.get("server")
    if not isinstance(server, dict):
        raise _malformed("'server' must be an object")
    if ctx.transport == "stdio":
        command = server.get("command")
        if not isinstance(command, list) or not command:
            raise _malformed("stdio needs 'server.command', a non-empty array of strings")
        if not all(isinstance(word, str) for word in command):
            raise _malformed("'server.command' must contain only strings")
        ctx.server_command = list(command)
    elif ctx.args and "://" in ctx.args[-1]:
        ctx.server_url = ctx.args.pop()
    elif isinstance(server.get("url"), str):
        ctx.server_url = server["url"]
    else:
        raise _malformed("HTTP transports need the server URL (last argument or 'server.url')")


def _read_invocation(transports: Sequence[str], ops: Mapping[str, Callable]):
    transport = _require_env("MCP_CONFORMANCE_TRANSPORT")
    if transport not in transports:
        raise _Refusal(UNSUPPORTED, f"transport '{transport}' is not supported")
    protocol_version = _require_env("MCP_CONFORMANCE_PROTOCOL_VERSION")
    try:
        context = json.loads(_require_env("MCP_CONFORMANCE_CONTEXT"))
    except ValueError:
        raise _malformed("not valid JSON") from None
    steps = _check_steps(context, ops)
    ctx = Context(transport, protocol_version, context, list(sys.argv[1:]))
    _locate_server(ctx)
    return ctx, steps


def _take_stdout():
    # The step lines go to a private copy of stdout; fd 1 then points at stderr, so whatever
    # an op or the library prints lands in the logs.
    sys.stdout.flush()
    report = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="replace")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return report


def _describe(error: BaseException, error_code: Optional[Callable]) -> dict:
    # `code` only when error_code finds a JSON-RPC code in the library's exception.
    code = error_code(error) if error_code else None
    out: dict = {}
    if isinstance(code, int) and not isinstance(code, bool):
        out["code"] = code
    out["message"] = str(error) or type(error).__name__
    return out


async def _call(function: Callable, step: dict) -> Any:
    # A coroutine function runs on the loop; a plain one on a thread of its own, so that a
    # blocking call does not hold up the others (run_in_executor: asyncio.to_thread is 3.9+).
    if inspect.iscoroutinefunction(function):
        result = function(step)
    else:
        result = await asyncio.get_running_loop().run_in_executor(None, function, step)
    return await result if inspect.isawaitable(result) else result


async def _run_calls(index: int, calls: list, call_tool: Callable, error_code, log) -> dict:
    # Every call starts before any is awaited; each settles into its own entry, in order.
    outcomes = await asyncio.gather(*(_call(call_tool, {"op": "call_tool", **call}) for call in calls),
                                    return_exceptions=True)
    entries = []
    for j, outcome in enumerate(outcomes):
        if isinstance(outcome, Exception):
            log(f"step {index} (call_tools_concurrently calls[{j}]) failed: "
                f"{type(outcome).__name__}: {outcome}")
            entries.append({"ok": False, "error": _describe(outcome, error_code)})
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            entries.append({"ok": True, "result": {} if outcome is None else outcome})
    return {"calls": entries}


async def _run_steps(ctx, steps, ops, error_code, report, log) -> None:
    for index, step in enumerate(steps):
        op = step["op"]
        try:
            if op == "idle":
                await asyncio.sleep(step["ms"] / 1000)
                result = {}
            elif op == "call_tools_concurrently":
                result = await _run_calls(index, step["calls"], ops["call_tool"], error_code, log)
            else:
                result = ops[op](ctx) if op == "connect" else ops[op](step)
                if inspect.isawaitable(result):
                    result = await result
            line = json.dumps({"step": index, "op": op, "ok": True,
                               "result": {} if result is None else result},
                              ensure_ascii=False, separators=(",", ":"))
        except Exception as error:  # every failure of a step is reported, then the next runs
            log(f"step {index} ({op}) failed: {type(error).__name__}: {error}")
            line = json.dumps({"step": index, "op": op, "ok": False,
                               "error": _describe(error, error_code)},
                              ensure_ascii=False, separators=(",", ":"))
        report.write(line + "\n")
        report.flush()


def _run_case(ops, transports, error_code, report, log) -> int:
    """One case from the environment and sys.argv: its exit status."""
    try:
        ctx, steps = _read_invocation(transports, ops)
    except _Refusal as refusal:
        log(str(refusal))
        return refusal.status
    # Not asyncio.run(): it would wait for the tasks and threads the library left behind.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    loop.run_until_complete(_run_steps(ctx, steps, ops, error_code, report, log))
    return 0


def _adopted_children() -> list:
    # The processes whose parent is this one: the cases' leftovers, adopted as a subreaper.
    me, found = os.getpid(), []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == me:
            found.append(int(entry))
    return found


def _reap_leftovers() -> None:
    # Waits up to CHILD_GRACE_S for what the case left (its stdio server) to end, then kills it.
    # As a subreaper this process is the parent of those orphans: waitpid(-1) reaps them, and
    # says when none is left.
    until = time.monotonic() + CHILD_GRACE_S
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # nothing left
        if pid:
            continue
        if time.monotonic() >= until:
            break
        time.sleep(0.002)
    for pid in _adopted_children():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _run_session(ops, transports, error_code, report, log, preload) -> None:
    # A case per line of stdin, each in a child forked from this process: a fresh client, loop
    # and set of threads every time, the library already imported. The child's end is the
    # case's; the variables and the appended words are the request's.
    try:
        import ctypes
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come here
    except (OSError, AttributeError):
        pass
    if preload is not None:
        preload()  # once, here: every case's process then starts with it done
    own_args = list(sys.argv)
    for text in sys.stdin.buffer:
        if not text.strip():
            continue
        request = json.loads(text)
        sys.stderr.flush()
        report.flush()
        pid = os.fork()
        if pid == 0:
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            for variable in CASE_VARIABLES:
                os.environ.pop(variable, None)
            os.environ.update(request.get("env", {}))
            sys.argv = own_args + list(request.get("args", []))
            status = _run_case(ops, transports, error_code, report, log)
            report.flush()
            sys.stderr.flush()
            os._exit(status)
        _, status = os.waitpid(pid, 0)
        _reap_leftovers()
        end = {"case_end": request.get("case")}
        if os.WIFSIGNALED(status):
            end["signal"] = os.WTERMSIG(status)
        else:
            end["exit"] = os.WEXITSTATUS(status)
        sys.stderr.write(f"mcp-conformance: end of case {request.get('case')}\n")
        sys.stderr.flush()
        report.write(json.dumps(end, separators=(",", ":")) + "\n")
        report.flush()


def run_driver(*, ops: Mapping[str, Callable], transports: Sequence[str] = ALL_TRANSPORTS,
               error_code: Optional[Callable[[BaseException], Optional[int]]] = None,
               name: Optional[str] = None,
               preload: Optional[Callable[[], None]] = None) -> NoReturn:
    """Runs the steps with `ops` (op name -> callable; connect gets the Context, the others
    the step dict with its fields, timeout_ms among them) and exits. `preload`, when given,
    is run once by a session (contract v1.3) before its first case: the costly imports of a
    library that imports them lazily, so that each case's process starts with them done."""
    unknown = [op for op in ops if op in KIT_OPS or op not in KNOWN_OPS]
    if unknown:
        raise TypeError(f"run_driver: no such op {', '.join(unknown)} "
                        "(idle and call_tools_concurrently are the kit's)")
    name = name or os.path.basename(sys.argv[0])

    def log(message: str) -> None:
        print(f"{name}: {message}", file=sys.stderr, flush=True)

    session = os.environ.get("MCP_CONFORMANCE_SESSION") == "1"
    if session:
        sys.stdout.write(SESSION_HELLO + "\n")
    report = _take_stdout()
    if session and "MCP_CONFORMANCE_CONTEXT" not in os.environ:
        _run_session(ops, transports, error_code, report, log, preload)
        status = 0
    else:
        status = _run_case(ops, transports, error_code, report, log)
    report.flush()
    sys.stderr.flush()
    # Exit at once: tasks, threads or child processes the library left must not keep the
    # driver alive.
    os._exit(status)
