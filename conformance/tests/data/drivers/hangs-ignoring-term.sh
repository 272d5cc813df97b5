#!/bin/sh
# A driver that hangs and ignores SIGTERM, leaving a grandchild behind: the runner must kill
# its whole process group at the case deadline. $1 marks the grandchild for the test to find.
case "$MCP_CONFORMANCE_CONTEXT" in *__unsupported__*) exit 127 ;; esac
trap '' TERM
sh -c 'trap "" TERM; while :; do sleep 1; done' "$1" &
while :; do sleep 1; done
