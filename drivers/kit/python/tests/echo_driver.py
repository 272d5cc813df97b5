"""The echo driver of drivers/kit/tests/cases.json on the Python kit: ops that report what
they were given. Some ops are coroutines and some plain functions, as a kit user's may be;
call_tool is a plain function, or with the first argument --async-calls a coroutine."""

import asyncio
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mcp_conformance_driver import run_driver  # noqa: E402


class LibraryError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.rpc_code = code

CHILDREN = []  # held, so that their pipes stay open


def called(op):
    # One write: concurrent calls must not interleave their lines.
    sys.stderr.write(f"call {op}\n")
    sys.stderr.flush()


# 'rendezvous' returns only once two such calls have started: calls run one after another
# never get there.
BARRIER = threading.Barrier(2, timeout=10)


async def connect(ctx):
    called("connect")
    return {"transport": ctx.transport, "protocol_version": ctx.protocol_version,
            "server_command": ctx.server_command, "server_url": ctx.server_url, "args": ctx.args}


def call_tool(step):
    called("call_tool")
    name = step["name"]
    if name == "fail-rpc":
        raise LibraryError(-32601, "Method not found")
    if name == "fail-plain":
        raise RuntimeError("plain failure")
    if name == "log":
        print("noise")
        os.write(1, b"noise on fd 1\n")
        return {"logged": True}
    if name == "not-json":
        return {"value": object()}
    if name == "spawn-child":  # a child that ends only at the end of its stdin, left running
        child = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        CHILDREN.append(child)
        print(f"child {child.pid}", file=sys.stderr, flush=True)
        return {"spawned": True}
    if name == "rendezvous":
        BARRIER.wait()
    return {"name": name, "arguments": step.get("arguments", {}),
            "timeout_ms": step.get("timeout_ms")}


async def ping(step):
    called("ping")
    return {"timeout_ms": step.get("timeout_ms")}


def close(step):
    called("close")


ARRIVED = []
TOGETHER = []  # the asyncio.Event, made on the kit's loop


async def call_tool_async(step):
    if step["name"] == "rendezvous":
        if not TOGETHER:
            TOGETHER.append(asyncio.Event())
        ARRIVED.append(step)
        if len(ARRIVED) >= 2:
            TOGETHER[0].set()
        await asyncio.wait_for(TOGETHER[0].wait(), 10)
        called("call_tool")
        return {"name": "rendezvous", "arguments": step.get("arguments", {}), "timeout_ms": None}
    return call_tool(step)


ASYNC_CALLS = sys.argv[1:2] == ["--async-calls"]
run_driver(transports=("stdio", "streamable-http"),
           ops={"connect": connect, "call_tool": call_tool_async if ASYNC_CALLS else call_tool,
                "ping": ping, "close": close},
           error_code=lambda error: getattr(error, "rpc_code", None))
