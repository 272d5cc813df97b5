#!/bin/sh
# Runs the catalogue's ctest tests N times in a row and reports every test that did not pass
# each time: a flake is a bug (docs/development.md, "Soak").
#
#   cmake/soak.sh RUNS [LABEL-REGEX]
#
# LABEL-REGEX picks the ctest labels (default: mcp-ping-conformance, the catalogue against
# the reference client and, when it is wired, the TypeScript SDK). The build folder is
# MCP_PING_BUILD_DIR (default <repo>/build), already built; MCP_PING_JOBS sets ctest -j
# (default 2). The ctest log of each run that failed, with the failing tests' output, is kept
# in <build>/soak/run-<N>.log (the evidence folders are overwritten by the next run). Exit
# status 0 when every run passed, 1 when a test failed at least once, 2 for a bad command line.
set -eu

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
runs=$1
labels=${2:-mcp-ping-conformance}
case "$runs" in '' | *[!0-9]*) usage ;; esac
[ "$runs" -ge 1 ] || usage

root=$(cd "$(dirname "$0")/.." && pwd)
build=${MCP_PING_BUILD_DIR:-$root/build}
jobs=${MCP_PING_JOBS:-2}
[ -f "$build/CTestTestfile.cmake" ] || {
  echo "soak: $build is not a configured build folder (run cmake/bootstrap.sh test first)" >&2
  exit 2
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
: >"$work/failures"
logs=$build/soak
rm -f "$logs"/run-*.log
mkdir -p "$logs"

i=1
while [ "$i" -le "$runs" ]; do
  start=$(date +%s)
  if ctest --test-dir "$build" -L "$labels" -j "$jobs" --timeout 300 --output-on-failure \
    >"$work/run.log" 2>&1; then
    status=passed
  else
    status=failed
    # ctest's summary lists each test that did not pass as "<n> - <name> (<why>)"; a skipped
    # test (an UNSUPPORTED case, exit 77) is in that list too, and is not a failure.
    sed -n 's/^[[:space:]]*[0-9][0-9]* - \(.*\) (\(.*\))$/\1 (\2)/p' "$work/run.log" |
      grep -v ' (Skipped)$' | tee -a "$work/failures" | sed "s/^/  run $i: /"
    cp "$work/run.log" "$logs/run-$i.log"
    echo "  run $i: log in $logs/run-$i.log"
  fi
  tests=$(sed -n 's/.*tests passed, [0-9]* tests failed out of \([0-9]*\).*/\1/p' "$work/run.log")
  echo "soak: run $i/$runs $status (${tests:-?} tests, $(($(date +%s) - start)) s)"
  i=$((i + 1))
done

if [ -s "$work/failures" ]; then
  echo "soak: tests that did not pass every time (count, test):"
  sort "$work/failures" | uniq -c | sort -rn
  exit 1
fi
echo "soak: $runs runs, no flake"
