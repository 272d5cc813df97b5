"""Driver (contract v1.3, docs/driver-contract.md) for the official MCP Python SDK's client,
the `mcp` package from PyPI, on the Python driver kit (drivers/kit/README.md). It uses only
the SDK's public client API: `mcp.Client` over `stdio_client`, `streamable_http_client` and
`sse_client`.

    drivers/python-sdk/run-driver [server-url]      (the venv's python with this file)

The client lives in a task of its own, as `async with Client(...)` in a long-lived
application does: its anyio task groups must be entered and left in one task, and a failure
inside them must end that task, not the kit's loop of steps. The ops talk to it from the
kit's task.
"""

import asyncio
import logging
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kit", "python"))
from mcp_conformance_driver import run_driver  # noqa: E402  (its run_driver moves fd 1 to stderr)

NAME = "python-sdk-driver"
# The SDK logs what it drops (unparseable lines, rejected frames) through `logging`: evidence.
logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format=f"{NAME}: %(name)s %(levelname)s %(message)s")


def import_sdk():
    # Not at the top: importing the SDK takes 1-3 s of CPU, and the suite's pre-check (the op
    # "__unsupported__", exit 127 from the kit) should not wait for it on a loaded machine.
    global types, Client, StdioServerParameters, sse_client, stdio_client, streamable_http_client, MCPError
    global LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS
    import mcp_types as types
    from mcp import Client, StdioServerParameters
    from mcp.client.sse import sse_client
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError
    from mcp_types.version import LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS


def log(message):
    print(f"{NAME}: {message}", file=sys.stderr, flush=True)


def make_transport(ctx):
    if ctx.transport == "stdio":
        command, *args = ctx.server_command
        return stdio_client(StdioServerParameters(command=command, args=args))
    if ctx.transport == "sse":
        return sse_client(ctx.server_url)
    return streamable_http_client(ctx.server_url)


def connect_mode(protocol_version):
    # A modern revision: the SDK's default, "auto" (server/discover, then initialize if the
    # server is legacy). A handshake revision: "legacy", the initialize handshake, which
    # always offers LATEST_HANDSHAKE_VERSION; the SDK has no option to offer another.
    if protocol_version in MODERN_PROTOCOL_VERSIONS:
        return "auto"
    if protocol_version != LATEST_HANDSHAKE_VERSION:
        log(f"asked to offer {protocol_version}; the SDK offers {LATEST_HANDSHAKE_VERSION} "
            "and accepts what the server picks")
    return "legacy"


async def on_message(message):
    # Transport-level exceptions the session does not hand to a caller.
    if isinstance(message, Exception):
        log(f"message_handler: {type(message).__name__}: {message}")


client = None
done = None  # set by close: the client's task leaves `async with` and ends
owner = None  # the client's task


async def hold(ready):
    async with client:
        ready.set_result(None)
        await done.wait()


async def connect(ctx):
    global client, done, owner
    import_sdk()
    client = Client(make_transport(ctx), mode=connect_mode(ctx.protocol_version),
                    client_info=types.Implementation(name="mcp-ping-conformance-python-sdk-driver", version="0.1.0"),
                    message_handler=on_message)
    done, ready = asyncio.Event(), asyncio.get_running_loop().create_future()
    owner = asyncio.ensure_future(hold(ready))
    # The handshake's outcome: `ready`, or the client's task ending with the error.
    await asyncio.wait([ready, owner], return_when=asyncio.FIRST_COMPLETED)
    if not ready.done():
        owner.result()
        raise RuntimeError("the client ended during connect")
    return {"protocolVersion": client.protocol_version,
            "serverInfo": dump(client.server_info) if client.server_info else None}


def seconds(step):
    # timeout_ms (contract v1.1): this request's own timeout; else the session's (none).
    return step["timeout_ms"] / 1000 if step.get("timeout_ms") else None


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def call_tool(step):
    return dump(await client.call_tool(step["name"], step.get("arguments", {}), read_timeout_seconds=seconds(step)))


async def list_tools(step):
    if step.get("timeout_ms"):  # Client.list_tools has no per-request timeout
        result = await client.session.send_request(types.ListToolsRequest(), types.ListToolsResult,
                                                   request_read_timeout_seconds=seconds(step))
    else:
        result = await client.list_tools()
    return dump(result)


async def ping(step):
    # Client.send_ping() (deprecated: ping is gone from 2026-07-28) has no timeout option; the
    # session's send_request, which it calls, takes one.
    if step.get("timeout_ms"):
        return dump(await client.session.send_request(types.PingRequest(), types.EmptyResult,
                                                      request_read_timeout_seconds=seconds(step)))
    return dump(await client.send_ping())


async def close(step):
    done.set()
    await owner  # leaving `async with`: the SDK's normal close; its error fails the step


def error_code(error):
    # The JSON-RPC code of an MCPError (the SDK's error for an error response, a timeout, a
    # closed connection); never an HTTP status. MCPError exists once connect imported the SDK.
    return error.code if "MCPError" in globals() and isinstance(error, MCPError) else None


run_driver(name=NAME,
           ops={"connect": connect, "call_tool": call_tool, "list_tools": list_tools, "ping": ping,
                "close": close},
           error_code=error_code,
           preload=import_sdk)  # a session (contract v1.3) imports the SDK once, not per case
