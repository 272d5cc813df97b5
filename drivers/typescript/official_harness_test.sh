#!/bin/sh
# `run --harness official` with the TypeScript SDK's official-style harness
# (official-harness.mjs) must give the same verdict as the TypeScript SDK driver (driver.mjs)
# on every case the harness covers: both runs on exactly those cases, then their results
# compared case by case (through `table`, which reads each run's results.json).
#   official_harness_test.sh RUNNER NODE TYPESCRIPT_DIR WORK_DIR
# MCP_PING_TIMEOUT_MULTIPLIER (default 1) scales every bound of both runs, for a loaded machine.
set -eu
runner=$1
node=$2
here=$3
work=$4
rm -rf "$work"
mkdir -p "$work"

fail() {
  echo "official_harness_test: $1" >&2
  exit 1
}

"$runner" list --harness official >"$work/cases.txt" || fail "list --harness official failed"
covered=$(wc -l <"$work/cases.txt")
[ "$covered" -gt 0 ] || fail "list --harness official lists no case"
set --
while read -r id transport _; do
  [ "$transport" = streamable-http ] || fail "a covered case on $transport: $id"
  set -- "$@" --scenario "$id"
done <"$work/cases.txt"

# 0 (nothing failed) and 1 (a case failed: the SDK's known failures) both leave results to
# compare; 2 is the suite's own trouble.
run() {
  label=$1
  shift
  status=0
  "$runner" run --transport streamable-http --jobs 2 \
    --timeout-multiplier "${MCP_PING_TIMEOUT_MULTIPLIER:-1}" --report-dir "$work/$label" "$@" \
    >"$work/$label.out" 2>&1 || status=$?
  [ "$status" -le 1 ] || fail "the $label run exited $status: $(tail -n 20 "$work/$label.out")"
}
run harness --harness official "$@" -- "$node" "$here/official-harness.mjs"
run driver "$@" -- "$node" "$here/driver.mjs"

"$runner" table --column harness="$work/harness" --column driver="$work/driver" \
  >"$work/table.md" || fail "table failed"
# Rows: | `case` | transport | harness verdict | driver verdict |
awk -F'|' -v covered="$covered" '
  function trim(s) { gsub(/^ +| +$/, "", s); return s }
  /^\| `/ {
    rows++
    harness = trim($4); driver = trim($5)
    if (harness == "UNSUPPORTED") unsupported++
    if (harness != driver) { print "differs: " trim($2) " " trim($3) ": harness " harness ", driver " driver; bad++ }
  }
  END {
    if (rows != covered) { print "the table has " rows " rows for " covered " covered cases"; bad++ }
    if (unsupported == rows) { print "every case UNSUPPORTED under the harness"; bad++ }
    exit bad > 0
  }' "$work/table.md" >"$work/differences.txt" ||
  fail "verdicts differ (see $work/table.md):
$(cat "$work/differences.txt")"
echo "official_harness_test: the harness and the driver agree on all $covered covered cases"
