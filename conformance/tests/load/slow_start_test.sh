#!/bin/sh
# A client that needs seconds of CPU before its first line (an interpreter loading a large
# library, `npx tsx`), run at the default --jobs beside a busy loop, gets the same verdicts as
# at --jobs 1: time starts at first contact, and the run starts no more such clients at once
# than the cores can start inside the start-up budget (docs/verdicts.md, "Timeouts").
#
#   slow_start_test.sh <runner> <reference driver> <work dir> [CPU-seconds per start]
set -eu
runner=$1
driver=$2
work=$3
burn=${4:-3}
rm -rf "$work"
mkdir -p "$work"

# The stand-in: burns `burn` CPU-seconds, then becomes the reference driver.
cat >"$work/slow-driver" <<SCRIPT
#!/bin/sh
exec python3 -c '
import os, sys, time
while time.process_time() < $burn:
    pass
os.execv(sys.argv[1], sys.argv[1:])
' "$driver" --keepalive-ms 1000 "\$@"
SCRIPT
chmod +x "$work/slow-driver"

busy_pid=""
cleanup() { [ -z "$busy_pid" ] || kill "$busy_pid" 2>/dev/null || true; }
trap cleanup EXIT INT TERM
sh -c 'while :; do :; done' &
busy_pid=$!

cases="--scenario ping/while-awaiting --scenario ping/id/zero --scenario ping/colliding-id"
verdicts() { # <report dir>: "case transport verdict" lines, sorted
  python3 -c '
import json, sys
doc = json.load(open(sys.argv[1] + "/results.json"))
for c in doc["cases"]:
    print(c["case"], c["transport"], c["verdict"])
' "$1" | sort
}

status=0
"$runner" run $cases --report-dir "$work/default" -- "$work/slow-driver" >"$work/default.log" 2>&1 || status=$?
[ "$status" -le 1 ] || { cat "$work/default.log"; echo "the default run failed (exit $status)"; exit 1; }
grep -q "start-up: .* at once" "$work/default.log" || {
  cat "$work/default.log"; echo "the default run did not measure the client's start-up"; exit 1; }
status=0
"$runner" run $cases --jobs 1 --report-dir "$work/one" -- "$work/slow-driver" >"$work/one.log" 2>&1 || status=$?
[ "$status" -le 1 ] || { cat "$work/one.log"; echo "the --jobs 1 run failed (exit $status)"; exit 1; }

verdicts "$work/default" >"$work/default.verdicts"
verdicts "$work/one" >"$work/one.verdicts"
if ! diff -u "$work/one.verdicts" "$work/default.verdicts"; then
  echo "verdicts differ between --jobs 1 and the default"
  exit 1
fi
if grep -qv " PASS$" "$work/one.verdicts"; then
  cat "$work/one.verdicts"; echo "the reference client behind a slow start did not pass"; exit 1
fi
grep "start-up:" "$work/default.log"
echo "same verdicts at --jobs 1 and the default ($(wc -l <"$work/one.verdicts") cases)"
