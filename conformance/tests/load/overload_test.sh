#!/bin/sh
# An overloaded machine (busy loops on every core, twice over) gives the reference client no
# FAIL: a timing check judged while the mock server's timers ran late is not judged, and says
# so (docs/verdicts.md, "Timeouts"). The client's own request timeout is raised from its 3 s
# default: a request the starved client gives up on is the client's choice, not the suite's
# judgement under test.
#
#   overload_test.sh <runner> <reference driver> <work dir>
set -eu
runner=$1
driver=$2
work=$3
rm -rf "$work"
mkdir -p "$work"

pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
for _ in $(seq $(($(nproc) * 2))); do
  sh -c 'while :; do :; done' &
  pids="$pids $!"
done

status=0
"$runner" run --strict --report-dir "$work/report" -- "$driver" --keepalive-ms 1000 --request-timeout-ms 10000 \
  >"$work/run.log" 2>&1 || status=$?
tail -3 "$work/run.log"
if [ "$status" -ne 0 ]; then
  grep -E "FAIL|ERROR|NON_STRICT" "$work/run.log" | head -20
  echo "the reference client did not pass on an overloaded machine (exit $status)"
  exit 1
fi
overloaded=$(grep -c "overloaded" "$work/report/results.json" || true)
echo "not judged for overload: $overloaded check(s)"
