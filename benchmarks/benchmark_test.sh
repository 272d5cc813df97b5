#!/bin/sh
# benchmarks/benchmark.sh --quick against a built folder: the report has every section, each with
# its table, at least one row of figures and the commands; no figure's value is judged.
#
#   benchmark_test.sh BENCHMARK_SCRIPT BUILD_DIR WORK_DIR
set -eu
benchmark=$1
build=$2
work=$3
rm -rf "$work"
mkdir -p "$work"

fail() {
  echo "benchmark_test: $1" >&2
  sed 's/^/  | /' "$work/report.md" >&2
  exit 1
}

status=0
MCP_PING_BUILD_DIR=$build sh "$benchmark" --quick >"$work/report.md" 2>"$work/stderr" || status=$?
[ "$status" -eq 0 ] || fail "exit status $status; stderr: $(cat "$work/stderr")"

grep -q '^# mcp-ping-conformance benchmark$' "$work/report.md" || fail "no title"
grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC, .*[0-9]+ cores' "$work/report.md" ||
  fail "no dated machine line"
for section in catalogue overhead latency burst loopback flood; do
  # The section's lines: from its heading to the next one.
  sed -n "/^## $section:/,/^## /p" "$work/report.md" >"$work/$section.md"
  [ -s "$work/$section.md" ] || fail "no section $section"
  grep -q '^|---' "$work/$section.md" || fail "$section: no table"
  # A row of figures: a table line after the separator with a number in a cell.
  sed -n '/^|---/,/^$/p' "$work/$section.md" | grep -Eq '^\| .*\| [0-9][0-9.]* \|' ||
    fail "$section: no row of figures"
  grep -q '^```sh$' "$work/$section.md" || fail "$section: no commands"
  ! grep -q 'not measured' "$work/$section.md" || fail "$section: a figure was not measured"
done

# One section by name: only that one.
MCP_PING_BUILD_DIR=$build sh "$benchmark" --quick overhead >"$work/one.md" 2>&1 ||
  fail "overhead alone failed: $(cat "$work/one.md")"
[ "$(grep -c '^## ' "$work/one.md")" -eq 1 ] || fail "overhead alone printed other sections"

status=0
sh "$benchmark" --quick nonsense >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "an unknown section exits $status, not 2"
status=0
"$build/bin/mcp-http-loopback-bench" --posts 0 >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "mcp-http-loopback-bench --posts 0 exits $status, not 2"
status=0
MCP_PING_BUILD_DIR=$work/none sh "$benchmark" --quick >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "a missing build folder exits $status, not 2"
echo "benchmark_test: ok"
