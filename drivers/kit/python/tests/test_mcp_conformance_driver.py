"""Tests of the Python driver kit: the shared cases of drivers/kit/tests/cases.json against
echo_driver.py, then what is particular to Python (coroutine and plain ops, results that are
not JSON). Run: python3 -m unittest discover -s drivers/kit/python/tests"""

import json
import os
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ECHO_DRIVER = os.path.join(HERE, "echo_driver.py")
with open(os.path.join(HERE, "..", "..", "tests", "cases.json"), encoding="utf-8") as spec:
    SPEC = json.load(spec)
    CASES, SESSIONS = SPEC["cases"], SPEC["sessions"]


def run_echo_driver(context, transport="stdio", args=(), session=False):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_CONFORMANCE_")}
    if session:
        env["MCP_CONFORMANCE_SESSION"] = "1"
    env["MCP_CONFORMANCE_PROTOCOL_VERSION"] = "2025-11-25"
    if transport is not None:
        env["MCP_CONFORMANCE_TRANSPORT"] = transport
    if context is not None:
        env["MCP_CONFORMANCE_CONTEXT"] = context if isinstance(context, str) else json.dumps(context)
    started = time.monotonic()
    done = subprocess.run([sys.executable, ECHO_DRIVER, *args], env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    return done, (time.monotonic() - started) * 1000


def step_lines(stdout):
    # Every line must be one JSON value: a stray log line fails here.
    return [json.loads(line) for line in stdout.splitlines()]


class SharedCases(unittest.TestCase):
    def test_cases(self):
        for case in CASES:
            with self.subTest(case["name"]):
                done, wall_ms = run_echo_driver(case["context"], case.get("transport", "stdio"),
                                                case.get("args", []), case.get("session", False))
                self.assertEqual(done.returncode, case["exit"], done.stderr)
                self.assertEqual(step_lines(done.stdout), case.get("stdout", []), done.stderr)
                for text in case.get("stderr", []):
                    self.assertIn(text, done.stderr)
                if "calls" in case:
                    calls = [line[5:] for line in done.stderr.splitlines() if line.startswith("call ")]
                    self.assertEqual(calls, case["calls"], done.stderr)
                self.assertGreaterEqual(wall_ms, case.get("min_wall_ms", 0))


class SharedSessions(unittest.TestCase):
    """A session (contract v1.3): one request per line on stdin, then the end of stdin."""

    def test_sessions(self):
        for session in SESSIONS:
            with self.subTest(session["name"]):
                env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_CONFORMANCE_")}
                env["MCP_CONFORMANCE_SESSION"] = "1"
                lines = []
                for number, request in enumerate(session["requests"], 1):
                    context = request["context"]
                    lines.append(json.dumps({"case": number, "args": request.get("args", []), "env": {
                        "MCP_CONFORMANCE_TRANSPORT": request["transport"],
                        "MCP_CONFORMANCE_PROTOCOL_VERSION": "2025-11-25",
                        "MCP_CONFORMANCE_CONTEXT": context if isinstance(context, str) else json.dumps(context)}}))
                done = subprocess.run([sys.executable, ECHO_DRIVER], env=env, input="\n".join(lines) + "\n",
                                      capture_output=True, text=True, timeout=60, check=False)
                self.assertEqual(done.returncode, session["exit"], done.stderr)
                self.assertEqual(step_lines(done.stdout), session["stdout"], done.stderr)
                at = 0
                for text in session["stderr"]:
                    found = done.stderr.find(text, at)
                    self.assertGreaterEqual(found, 0, f"no {text!r} (in order) in {done.stderr}")
                    at = found + len(text)
                if session.get("children_gone"):
                    pids = [line[6:] for line in done.stderr.splitlines() if line.startswith("child ")]
                    self.assertTrue(pids, done.stderr)
                    for pid in pids:
                        self.assertFalse(os.path.exists(f"/proc/{pid}"), f"child {pid} still there")


class PythonSpecifics(unittest.TestCase):
    def test_concurrent_calls_of_a_coroutine_run_together_on_the_loop(self):
        calls = [{"name": "rendezvous", "arguments": {"text": "a"}}, {"name": "fail-plain"},
                 {"name": "rendezvous", "arguments": {"text": "b"}}]
        steps = [{"op": "call_tools_concurrently", "calls": calls}]
        done, _ = run_echo_driver({"server": {"command": ["/bin/false"]}, "steps": steps},
                                  args=["--async-calls"])
        self.assertEqual(done.returncode, 0, done.stderr)
        entries = step_lines(done.stdout)[0]["result"]["calls"]
        self.assertEqual([entry["ok"] for entry in entries], [True, False, True])
        self.assertEqual(entries[0]["result"]["arguments"], {"text": "a"})
        self.assertEqual(entries[1]["error"], {"message": "plain failure"})
        self.assertEqual(entries[2]["result"]["arguments"], {"text": "b"})

    def test_a_result_that_is_not_json_fails_its_step_only(self):
        steps = [{"op": "call_tool", "name": "not-json"}, {"op": "ping"}]
        done, _ = run_echo_driver({"server": {"command": ["/bin/false"]}, "steps": steps})
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = step_lines(done.stdout)
        self.assertEqual(len(lines), 2)
        self.assertFalse(lines[0]["ok"])
        self.assertNotIn("code", lines[0]["error"])
        self.assertIn("not JSON serializable", lines[0]["error"]["message"])
        self.assertEqual(lines[1], {"step": 1, "op": "ping", "ok": True,
                                    "result": {"timeout_ms": None}})

    def test_a_misspelt_op_is_refused_before_anything_runs(self):
        code = ("import sys; sys.path.insert(0, sys.argv[1]);"
                "from mcp_conformance_driver import run_driver;"
                "run_driver(ops={'call-tool': print})")
        done = subprocess.run([sys.executable, "-c", code, os.path.join(HERE, "..")],
                              capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stdout, "")
        self.assertIn("run_driver: no such op call-tool", done.stderr)


if __name__ == "__main__":
    unittest.main()
