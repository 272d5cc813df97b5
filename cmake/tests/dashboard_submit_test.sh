#!/bin/sh
# End to end test of cmake/dashboard.cmake: a ctest -S dashboard of cmake/tests/dashboard/
# (four conformance cases of this build: one failing, one not run as its driver fails the
# pre-check) submits to cdash-receiver on
# loopback, and what arrives must be what a CDash server needs: every part, intact, and a
# Test.xml with the test names, their status, the latency measurements (single pongs, and
# the burst apart) and the failed case's transcript attached.
#
#   dashboard_submit_test.sh <ctest> <cdash-receiver> <build bin dir> <work dir>
set -eu

if [ $# -ne 4 ]; then
  echo "usage: $0 <ctest> <cdash-receiver> <build bin dir> <work dir>" >&2
  exit 2
fi
ctest=$1
receiver=$2
bin=$(cd "$3" && pwd)
work=$4
here=$(cd "$(dirname "$0")" && pwd)
site=dashboard-test-site
build=dashboard-test-build

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

command -v xmllint >/dev/null 2>&1 ||
  fail "xmllint not found: install libxml2-utils (cmake/bootstrap.sh installs it)"

rm -rf "$work"
mkdir -p "$work"
received=$work/received

# The receiver is this shell's child: the EXIT trap stops it, ctest's timeout kills it with
# this shell's process tree, and it stops by itself when this shell dies.
receiver_pid=
stop_receiver() {
  if [ -n "$receiver_pid" ]; then
    kill "$receiver_pid" 2>/dev/null || true
    wait "$receiver_pid" 2>/dev/null || true
    receiver_pid=
  fi
}
trap stop_receiver EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

: >"$work/receiver.out"  # exists before the background job opens it
"$receiver" "$received" >"$work/receiver.out" 2>"$work/receiver.err" </dev/null &
receiver_pid=$!
tries=0
while :; do
  url=$(sed -n '1{/^http:\/\/127\.0\.0\.1:[0-9]*\/submit\.php$/p}' "$work/receiver.out")
  [ -n "$url" ] && break
  kill -0 "$receiver_pid" 2>/dev/null || fail "the receiver exited: $(cat "$work/receiver.err")"
  tries=$((tries + 1))
  [ "$tries" -le 100 ] || fail "the receiver printed no URL within 10 s"
  sleep 0.1
done
echo "receiver: $url"

# The sub-build's failing case makes the dashboard exit non-zero with "failed: tests"; any
# other failure (configure, build, submission) is a failure of this test.
status=0
timeout -k 5 60 "$ctest" \
  "-DCTEST_SUBMIT_URL=$url?project=mcp-ping-conformance" \
  "-DCTEST_SOURCE_DIRECTORY=$here/dashboard" \
  "-DCTEST_BINARY_DIRECTORY=$work/build" \
  "-DCTEST_SITE=$site" "-DCTEST_BUILD_NAME=$build" \
  "-DDASHBOARD_CMAKE_OPTIONS=-DMCP_PING_BIN=$bin" \
  -DDASHBOARD_TEST_LABEL=mcp-ping-conformance -DDASHBOARD_JOBS=2 \
  -S "$here/../dashboard.cmake" -V >"$work/dashboard.log" 2>&1 || status=$?
stop_receiver
echo "dashboard: exit status $status (log: $work/dashboard.log)"
[ "$status" -ne 0 ] || fail "the dashboard passed, but its no-pong case must fail"
grep -q "dashboard: failed: tests\$" "$work/dashboard.log" ||
  fail "the dashboard did not fail for the tests alone: $(tail -n 20 "$work/dashboard.log")"

# Each part arrived as one PUT, named <site>___<build>___<stamp>-<model>___XML___<part>.
for part in Configure Build Test Done; do
  grep -q "^PUT /submit\.php?project=mcp-ping-conformance&FileName=${site}___${build}___[0-9-]*-Experimental___XML___$part\.xml&" \
    "$received/requests.log" || fail "no PUT of $part.xml in $(cat "$received/requests.log")"
done
if grep -v '^PUT ' "$received/requests.log"; then
  fail "requests other than PUT (above)"
fi
# Intact: each stored body has the MD5 that CTest announced in its query.
while read -r method target bytes; do
  name=$(printf '%s\n' "$target" | sed -n 's/.*[?&]FileName=\([^&]*\).*/\1/p')
  md5=$(printf '%s\n' "$target" | sed -n 's/.*[?&]MD5=\([0-9a-f]*\).*/\1/p')
  if [ -z "$name" ] || [ -z "$md5" ]; then
    fail "no FileName or MD5 in $method $target"
  fi
  actual=$(md5sum "$received/$name" | cut -d' ' -f1)
  [ "$actual" = "$md5" ] || fail "$name: MD5 $actual, announced $md5 ($bytes bytes)"
done <"$received/requests.log"

test_xml=$(ls "$received"/*___XML___Test.xml)
xpath() {
  xmllint --xpath "$1" "$test_xml" 2>/dev/null || true
}
expect() { # <xpath> <expected value> <what>
  actual=$(xpath "$1")
  [ "$actual" = "$2" ] || fail "Test.xml: $3: '$actual', expected '$2'"
}
expect 'string(/Site/@Name)' "$site" "site name"
expect 'string(/Site/@BuildName)' "$build" "build name"
expect 'count(/Site/Testing/Test)' 7 \
  "number of tests (four cases and each client's pre-check; the unlabelled one excluded)"
for client in reference no-pong; do
  expect "string(/Site/Testing/Test[Name=\"$client/precheck\"]/@Status)" passed \
    "status of $client/precheck"
done
# A driver that fails its pre-check fails that one test, and its cases are not run.
expect 'string(/Site/Testing/Test[Name="accepts-everything/precheck"]/@Status)' failed \
  "status of accepts-everything/precheck"
expect 'string(/Site/Testing/Test[Name="accepts-everything/stdio/ping/id/string"]/@Status)' \
  notrun "status of accepts-everything/stdio/ping/id/string"
expect 'count(/Site/Testing/Test[Name="unlabelled"])' 0 "the unlabelled test"
expect 'string(/Site/Testing/Test[Name="reference/stdio/ping/burst"]/@Status)' passed \
  "status of reference/stdio/ping/burst"
expect 'string(/Site/Testing/Test[Name="reference/stdio/ping/id/string"]/@Status)' passed \
  "status of reference/stdio/ping/id/string"
expect 'string(/Site/Testing/Test[Name="no-pong/stdio/ping/id/string"]/@Status)' failed \
  "status of no-pong/stdio/ping/id/string"
measured() { # <test> <measurement name>
  measurement="/Site/Testing/Test[Name=\"$1\"]/Results/NamedMeasurement[@name=\"$2\"]"
  expect "string($measurement/@type)" numeric/double "$1: type of $2"
  expect "number($measurement/Value) >= 0" true "$1: $2 is a number"
}
# A single pong's figures, and a burst's apart: ping/burst has no single pong.
for figure in p50 p95 max; do
  measured reference/stdio/ping/id/string "ping_latency_ms_$figure"
done
for name in burst_time_to_last_pong_ms burst_pongs_per_second; do
  measured reference/stdio/ping/burst "$name"
done
expect 'count(/Site/Testing/Test[Name="reference/stdio/ping/burst"]/Results/NamedMeasurement[starts-with(@name,"ping_latency_ms_")])' \
  0 "single-pong measurements of reference/stdio/ping/burst"
expect 'string(/Site/Testing/Test[Name="no-pong/stdio/ping/id/string"]/NamedMeasurement[@name="Attached File"]/@filename)' \
  transcript.txt "file attached to the failed test"
echo "p50 of reference/stdio/ping/id/string: $(xpath 'string(/Site/Testing/Test[Name="reference/stdio/ping/id/string"]/Results/NamedMeasurement[@name="ping_latency_ms_p50"]/Value)') ms"
echo "reference/stdio/ping/burst: $(xpath 'string(/Site/Testing/Test[Name="reference/stdio/ping/burst"]/Results/NamedMeasurement[@name="burst_pongs_per_second"]/Value)') pongs/s"
echo "PASS: the dashboard submitted $(wc -l <"$received/requests.log") parts, as CDash expects"
