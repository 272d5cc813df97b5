#!/bin/sh
# A driver that writes logs to stdout: the suite must report ERROR quoting the line.
case "$MCP_CONFORMANCE_CONTEXT" in *__unsupported__*) exit 127 ;; esac
echo "connecting to the server..."
exit 0
