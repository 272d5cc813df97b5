#!/bin/sh
# A driver whose pre-check (op "__unsupported__") and case meet at the FIFO $1: each blocks
# until the other opens it. It passes only when the runner runs the pre-check beside the
# first case; run one after the other, the pre-check waits until its deadline.
case "$MCP_CONFORMANCE_CONTEXT" in
  *__unsupported__*)
    read -r _ <"$1"
    exit 127
    ;;
esac
echo case-started >"$1"
exit 127
