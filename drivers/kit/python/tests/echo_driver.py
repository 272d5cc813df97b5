"""The echo driver of drivers/kit/tests/cases.json on the Python kit: ops that report what
they were given. Some ops are coroutines and some plain functions, as a kit user's may be."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mcp_conformance_driver import run_driver  # noqa: E402


class LibraryError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.rpc_code = code


def called(op):
    print(f"call {op}", file=sys.stderr, flush=True)


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
    return {"name": name, "arguments": step.get("arguments", {}),
            "timeout_ms": step.get("timeout_ms")}


async def ping(step):
    called("ping")
    return {"timeout_ms": step.get("timeout_ms")}


def close(step):
    called("close")


run_driver(transports=("stdio", "streamable-http"),
           ops={"connect": connect, "call_tool": call_tool, "ping": ping, "close": close},
           error_code=lambda error: getattr(error, "rpc_code", None))
