#!/bin/sh
# cmake/soak.sh against a small hand-written ctest folder: a test that fails on its first run
# only is reported as a flake (exit 1), with the log of that run kept; steady tests and a
# skipped one (exit 77, an UNSUPPORTED case) are not; a bad command line exits 2.
#   soak_test.sh SOAK_SCRIPT WORK_DIR
set -eu
soak=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cat >"$work/CTestTestfile.cmake" <<CTEST
add_test(steady "/bin/sh" "-c" "exit 0")
set_tests_properties(steady PROPERTIES LABELS "demo;steady")
add_test(flaky "/bin/sh" "-c" "test -f '$work/ran' || { touch '$work/ran'; echo first-run-evidence; exit 1; }")
set_tests_properties(flaky PROPERTIES LABELS "demo")
add_test(unsupported "/bin/sh" "-c" "exit 77")
set_tests_properties(unsupported PROPERTIES LABELS "demo" SKIP_RETURN_CODE 77)
CTEST

fail() {
  echo "soak_test: $1" >&2
  exit 1
}

status=0
MCP_PING_BUILD_DIR=$work sh "$soak" 3 demo >"$work/out" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "a flaky test: exit $status, expected 1 ($(cat "$work/out"))"
grep -q "soak: run 1/3 failed" "$work/out" || fail "run 1 not reported as failed"
grep -q "soak: run 2/3 passed" "$work/out" || fail "run 2 not reported as passed"
grep -Eq "^ +1 flaky \(Failed\)$" "$work/out" || fail "the flake is not counted: $(cat "$work/out")"
! grep -q "unsupported" "$work/out" || fail "a skipped test is counted as a failure: $(cat "$work/out")"
grep -q "first-run-evidence" "$work/soak/run-1.log" || fail "the failed run's log is not kept"
[ ! -e "$work/soak/run-2.log" ] || fail "a passed run's log is kept"

status=0
MCP_PING_BUILD_DIR=$work sh "$soak" 2 steady >"$work/out" 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "steady tests: exit $status, expected 0"
grep -q "soak: 2 runs, no flake" "$work/out" || fail "no summary for steady tests"

status=0
MCP_PING_BUILD_DIR=$work sh "$soak" zero >"$work/out" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "a bad run count: exit $status, expected 2"
status=0
MCP_PING_BUILD_DIR=$work/none sh "$soak" 1 >"$work/out" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "no build folder: exit $status, expected 2"
grep -q "is not a configured build folder" "$work/out" || fail "no reason for a missing folder"
echo "soak_test: ok"
