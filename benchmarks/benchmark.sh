#!/bin/sh
# shellcheck disable=SC2317 # the sections are functions called by name ("section_$section")
# Measures the suite and prints a dated Markdown report on stdout, each figure with the
# command that produced it (docs/performance.md).
#
#   benchmarks/benchmark.sh [--quick] [SECTION...]
#
# SECTION: catalogue, overhead, latency, burst, loopback, flood (default: all six, in that
# order). --quick runs every section small (one case, few runs, 100-ping bursts and POSTs,
# 16 MiB floods): a smoke run of the script itself whose figures mean nothing. The build
# folder is MCP_PING_BUILD_DIR (default <repo>/build), already built with its tests. The
# TypeScript SDK is measured too when node and drivers/typescript/node_modules are there (not
# with --quick). Needs bash (CPU times), jq (results.json) and curl (the HTTP flood). Exit
# status 0, 1 when a measurement could not be made, 2 for a bad command line or build folder.
set -eu

usage() {
  sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

quick=false
sections=
for word in "$@"; do
  case "$word" in
    --quick) quick=true ;;
    catalogue | overhead | latency | burst | loopback | flood) sections="$sections $word" ;;
    *) usage ;;
  esac
done
[ -n "$sections" ] || sections="catalogue overhead latency burst loopback flood"

root=$(cd "$(dirname "$0")/.." && pwd)
build=${MCP_PING_BUILD_DIR:-$root/build}
runner=$build/bin/mcp-ping-conformance
reference=$build/bin/mcp-reference-driver
loopback=$build/bin/mcp-http-loopback-bench
for exe in "$runner" "$reference" "$build/bin/mcp-mock-stdio-server" \
  "$build/bin/mcp-mock-http-server" "$loopback"; do
  [ -x "$exe" ] || {
    echo "benchmark: $exe is missing (build the suite in $build first)" >&2
    exit 2
  }
done
for tool in bash jq curl; do
  command -v "$tool" >/dev/null || {
    echo "benchmark: $tool is not installed" >&2
    exit 2
  }
done
typescript=
if ! $quick && command -v node >/dev/null && [ -d "$root/drivers/typescript/node_modules" ]; then
  typescript="node $root/drivers/typescript/driver.mjs"
fi
cores=$(nproc)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
failed=0

# ---- helpers ----

# rusage OUT CMD...: runs CMD, passes TERM/INT/HUP on to it, and appends
# "<wall ms> <cpu ms> <exit status>" to OUT, cpu being user+sys of CMD and of every process
# it waited for (bash's `times`, in ms; /usr/bin/time rounds to 10 ms).
cat >"$work/rusage" <<'EOF'
#!/bin/bash
out=$1
shift
start=$(date +%s%N)
"$@" <&0 &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
while :; do
  wait "$child"
  status=$?
  kill -0 "$child" 2>/dev/null || break
done
end=$(date +%s%N)
times >"$out.$$"
awk -v wall=$(((end - start) / 1000000)) -v status="$status" '
  function ms(t, m, s) {
    m = t; sub(/m.*/, "", m); s = t; sub(/^[0-9]+m/, "", s); sub(/s$/, "", s)
    return m * 60000 + s * 1000
  }
  NR == 2 { printf "%d %.0f %d\n", wall, ms($1) + ms($2), status }' "$out.$$" >>"$out"
rm -f "$out.$$"
exit "$status"
EOF
chmod +x "$work/rusage"

# A copy of the runner next to wrappers of the mock servers (the runner starts the mock
# servers found next to itself), so that each mock server's CPU time is recorded apart.
mkdir "$work/bin"
cp "$runner" "$work/bin/"
for mock in mcp-mock-stdio-server mcp-mock-http-server; do
  printf '#!/bin/sh\nexec "%s" "%s" "%s" "$@"\n' "$work/rusage" "$work/$mock.times" \
    "$build/bin/$mock" >"$work/bin/$mock"
  chmod +x "$work/bin/$mock"
done

# The median of the numbers on stdin (the lower middle one of an even count).
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
# The last line's field N of file F.
last_field() { tail -n 1 "$2" | awk -v n="$1" '{ print $n }'; }
# A command as the report shows it: the build folder as $B, the scratch folder as $W.
shown() { printf '%s\n' "$*" | sed -e "s|$work|\$W|g" -e "s|$build|\$B|g" -e "s|$root/|./|g"; }
# Records that a measurement failed: the script then exits 1.
trouble() {
  echo "- **not measured**: $*"
  failed=1
}
client_label() { [ "$1" = reference ] && echo "reference client" || echo "TypeScript SDK"; }
driver_of() { [ "$1" = reference ] && echo "$reference" || echo "$typescript"; }
clients() { echo reference ${typescript:+typescript}; }

# ---- header ----

echo "# mcp-ping-conformance benchmark"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm), $cores cores" \
  "($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), load average before:" \
  "$(cut -d' ' -f1-3 /proc/loadavg)$($quick && echo ', --quick: figures mean nothing')."
echo "Suite: $("$runner" --version 2>/dev/null | head -n 1)${typescript:+; Node.js $(node --version)}."
echo "Commands: \`\$B\` is the build folder ($build), \`\$W\` a scratch folder;"
echo "\`rusage OUT CMD\` runs CMD and records its wall time and the CPU time (user+sys) of"
echo "CMD and every process it waited for (benchmarks/benchmark.sh)."

# ---- catalogue ----

section_catalogue() {
  echo
  echo "## catalogue: the whole catalogue against the reference client"
  echo
  if $quick; then
    set -- --scenario ping/id/zero --scenario ping/id/string --transport stdio
    jobs_list="1 2"
  else
    set --
    jobs_list="1 2 4 8"
  fi
  echo "| --jobs | wall s | CPU s (runner + children) | sum of case durations s | longest case s | bound s | cases | exit |"
  echo "|---|---|---|---|---|---|---|---|"
  commands=
  for jobs in $jobs_list; do
    report=$work/catalogue-$jobs
    cmd="$work/rusage $work/catalogue.times $runner run $* --jobs $jobs --report-dir $report -- $reference"
    commands="$commands$(shown "$cmd")
"
    "$work/rusage" "$work/catalogue.times" "$runner" run "$@" --jobs "$jobs" \
      --report-dir "$report" -- "$reference" >"$work/catalogue-$jobs.log" 2>&1 || true
    if [ ! -s "$report/results.json" ]; then
      echo "| $jobs | - | - | - | - | - | - | no results.json |"
      failed=1
      continue
    fi
    wall=$(last_field 1 "$work/catalogue.times")
    cpu=$(last_field 2 "$work/catalogue.times")
    status=$(last_field 3 "$work/catalogue.times")
    jq -r '[.cases[].duration_ms] | "\(add) \(max) \(length)"' "$report/results.json" |
      awk -v j="$jobs" -v w="$wall" -v c="$cpu" -v n="$cores" -v s="$status" '{
        printf "| %s | %.1f | %.1f | %.1f | %.2f | %.1f | %d | %s |\n",
          j, w / 1000, c / 1000, $1 / 1000, $2 / 1000, ($2 + c / n) / 1000, $3, s }'
  done
  echo
  echo "bound = longest case + CPU time / cores ($cores): a case mostly waits (for the"
  echo "client, for an idle window), so the CPU the cases need, not their count, limits how"
  echo "many overlap; a scheduler that starts the longest case first and keeps the cores"
  echo "busy ends about then. At --jobs 1 the wall time is the sum of the durations. The"
  echo "default is --jobs $((cores * 4 > 4 ? cores * 4 : 4)) here (four per core)."
  echo
  echo '```sh'
  printf '%s' "$commands"
  echo '```'
}

# ---- overhead ----

# overhead_runs TRANSPORT RUNS: runs ping/id/zero RUNS times each way, plain (the build
# folder's runner, a fresh report folder each time, as a first ctest run) and under the
# wrappers; appends "plain-wall plain-cpu wall cpu runner+mock mock driver" per run to
# $work/overhead.rows and prints how many of the 2 x RUNS runs passed.
overhead_runs() {
  passes=0
  i=0
  while [ "$i" -lt "$2" ]; do
    i=$((i + 1))
    : >"$work/mcp-mock-stdio-server.times"
    : >"$work/mcp-mock-http-server.times"
    : >"$work/driver.times"
    if "$work/rusage" "$work/plain.times" "$runner" run --scenario ping/id/zero \
      --transport "$1" --jobs 1 --no-precheck --report-dir "$work/overhead-plain-$i" \
      -- "$reference" >"$work/overhead.log" 2>&1; then
      passes=$((passes + 1))
    fi
    if "$work/rusage" "$work/overhead.times" "$work/bin/mcp-ping-conformance" run \
      --scenario ping/id/zero --transport "$1" --jobs 1 --no-precheck \
      --report-dir "$work/overhead" \
      -- "$work/rusage" "$work/driver.times" "$reference" >"$work/overhead.log" 2>&1; then
      passes=$((passes + 1))
    fi
    case "$1" in
      stdio) mock=$work/mcp-mock-stdio-server.times ;;
      *) mock=$work/mcp-mock-http-server.times ;;
    esac
    { [ -s "$mock" ] && [ -s "$work/driver.times" ]; } || continue
    plain="$(last_field 1 "$work/plain.times") $(last_field 2 "$work/plain.times")"
    total=$(last_field 2 "$work/overhead.times")
    driver=$(last_field 2 "$work/driver.times")
    mock_cpu=$(last_field 2 "$mock")
    # stdio: the driver waited for the mock server, so the driver's figure holds it.
    if [ "$1" = stdio ]; then
      echo "$plain $(last_field 1 "$work/overhead.times") $total $((total - driver + mock_cpu)) $mock_cpu $((driver - mock_cpu))"
    else
      echo "$plain $(last_field 1 "$work/overhead.times") $total $((total - driver)) $mock_cpu $driver"
    fi >>"$work/overhead.rows"
  done
  echo "$passes"
}

section_overhead() {
  echo
  echo "## overhead: one short case (ping/id/zero) alone, reference client"
  echo
  runs=10
  $quick && runs=2
  transports="stdio streamable-http sse"
  $quick && transports=stdio
  echo "Medians over $runs runs each way, each as a ctest test runs it: with --no-precheck, as"
  echo "the ctest module checks the driver once per ctest run (a plain one-case run starts the"
  echo "driver a second time, beside the case, for that check). Plain: the build folder's"
  echo "runner, a fresh report folder each run. Wrapped: the runner with each mock server and"
  echo "the driver under rusage, whose bash wrappers add to the wall time, so that runner + mock"
  echo "= the runner and the mock server without the driver (for stdio the driver starts the"
  echo "mock server, so its figure contains the mock's)."
  echo
  echo "| transport | wall ms | CPU ms, all | wrapped: wall ms | CPU ms, all | runner + mock ms | mock server ms | driver ms | verdicts |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for transport in $transports; do
    : >"$work/overhead.rows"
    passes=$(overhead_runs "$transport" "$runs")
    if [ ! -s "$work/overhead.rows" ]; then
      echo "| $transport | - | - | - | - | - | - | - | $passes/$((2 * runs)) passed |"
      failed=1
      continue
    fi
    row="| $transport"
    for column in 1 2 3 4 5 6 7; do
      row="$row | $(awk -v c="$column" '{ print $c }' "$work/overhead.rows" | median)"
    done
    echo "$row | $passes/$((2 * runs)) passed |"
  done
  echo
  echo '```sh'
  shown "$work/rusage $work/plain.times $runner run --scenario ping/id/zero --transport T --jobs 1 --no-precheck --report-dir $work/overhead-plain-I -- $reference"
  shown "$work/rusage $work/overhead.times $work/bin/mcp-ping-conformance run --scenario ping/id/zero --transport T --jobs 1 --no-precheck --report-dir $work/overhead -- $work/rusage $work/driver.times $reference"
  echo "# \$W/bin: a copy of the runner and wrappers that start each mock server under rusage"
  echo '```'
}

# ---- latency ----

# The figures of the runner's "single-pong latency, T: p50 A ms, p95 B ms, max C ms (N pongs)"
# line for transport T in log L: "A B C N".
latency_of() {
  sed -n "s/^single-pong latency, $2: p50 \([0-9.]*\) ms, p95 \([0-9.]*\) ms, max \([0-9.]*\) ms (\([0-9]*\) pong.*/\1 \2 \3 \4/p" "$1"
}

section_latency() {
  echo
  echo "## latency: single pongs, reference client and TypeScript SDK back to back"
  echo
  if $quick; then
    set -- --scenario ping/id/zero
  else
    set -- --scenario 'ping/id/*' --scenario 'ping/params/*' --scenario ping/while-awaiting \
      --scenario ping/notification --scenario 'server-request/*'
  fi
  selection=$(printf "'%s' " "$@")
  for client in $(clients); do
    driver=$(driver_of "$client")
    # shellcheck disable=SC2086 # the TypeScript driver is "node driver.mjs"
    "$runner" run "$@" --jobs 1 --report-dir "$work/latency-$client" -- $driver \
      >"$work/latency-$client.log" 2>&1 || true
  done
  echo "| transport | client | p50 ms | p95 ms | max ms | pongs | p50 ratio TS/reference |"
  echo "|---|---|---|---|---|---|---|"
  for transport in stdio streamable-http sse; do
    ref_p50=
    for client in $(clients); do
      figures=$(latency_of "$work/latency-$client.log" "$transport")
      if [ -z "$figures" ]; then
        echo "| $transport | $(client_label "$client") | - | - | - | 0 | |"
        failed=1
        continue
      fi
      # shellcheck disable=SC2086
      set -- $figures
      ratio=
      if [ "$client" = reference ]; then
        ref_p50=$1
      elif [ -n "$ref_p50" ]; then
        ratio=$(awk -v a="$1" -v b="$ref_p50" 'BEGIN { if (b > 0) printf "%.1f", a / b }')
      fi
      echo "| $transport | $(client_label "$client") | $1 | $2 | $3 | $4 | $ratio |"
    done
  done
  echo
  echo "Each pong is timed by the mock server from the last byte of its ping to the pong"
  echo "(docs/reports.md); \`latency_ms\` of each case in \$W/latency-*/results.json."
  echo
  echo '```sh'
  for client in $(clients); do
    shown "$runner run $selection--jobs 1 --report-dir $work/latency-$client -- $(driver_of "$client")"
  done
  echo '```'
}

# ---- burst ----

# burst_fixtures P: a copy of fixtures/ whose ping/burst writes P pings, in $work/fixtures-P.
burst_fixtures() {
  [ -d "$work/fixtures-$1" ] && return
  cp -R "$root/fixtures" "$work/fixtures-$1"
  sed -e "s/\"repeat\": 1000,/\"repeat\": $1,/" -e "s/^  \"title\": \"1,000 pings/  \"title\": \"$1 pings/" \
    "$root/fixtures/scenarios/ping/burst.json" >"$work/fixtures-$1/scenarios/ping/burst.json"
  grep -q "\"repeat\": $1," "$work/fixtures-$1/scenarios/ping/burst.json"
}

# The burst's pongs get the burst cap (burst_cap_ms, 10 s), scaled with the burst's size.
burst_multiplier() { awk -v p="$1" 'BEGIN { m = p / 1000; print (m < 1 ? 1 : m) }'; }

# The driver command of CLIENT for a burst: the call pending during the burst must not time
# out first (the reference driver's default: 3 s).
burst_driver() {
  if [ "$1" = reference ]; then echo "$reference --request-timeout-ms 120000"; else echo "$typescript"; fi
}

# burst_run CLIENT TRANSPORT P: runs the P-ping burst; prints "pongs/P ms pongs-per-s" from the
# runner's burst line, nothing when there is none (the log is $work/burst-CLIENT-TRANSPORT.log).
burst_run() {
  log=$work/burst-$1-$2.log
  # shellcheck disable=SC2046 # the driver command is words
  "$runner" run --fixtures "$work/fixtures-$3" --scenario ping/burst --transport "$2" \
    --jobs 1 --timeout-multiplier "$(burst_multiplier "$3")" --report-dir "$work/burst-$1-$2" \
    -- $(burst_driver "$1") >"$log" 2>&1 || true
  # "burst ping/burst, T: P/N pongs, the last X ms after the first ping, R pongs/s"
  sed -n "s|^burst ping/burst, $2: \([0-9]*/[0-9]*\) pongs, the last \([0-9.]*\) ms after the first ping, \([0-9.]*\) pongs/s.*|\1 \2 \3|p" "$log"
}

burst_command() {
  shown "$runner run --fixtures $work/fixtures-$2 --scenario ping/burst --transport T --jobs 1 --timeout-multiplier $(burst_multiplier "$2") --report-dir $work/burst -- $(burst_driver "$1")"
}

section_burst() {
  echo
  pings=10000
  $quick && pings=100
  echo "## burst: $pings pings at once (ping/burst with \"repeat\": $pings)"
  echo
  burst_fixtures "$pings" || {
    trouble "fixtures/scenarios/ping/burst.json has no \"repeat\": 1000 to scale"
    return
  }
  echo "| client | transport | pongs | time to last pong ms | pongs/s | target |"
  echo "|---|---|---|---|---|---|"
  for client in $(clients); do
    for transport in stdio streamable-http sse; do
      figures=$(burst_run "$client" "$transport" "$pings")
      if [ -z "$figures" ]; then
        echo "| $(client_label "$client") | $transport | - | - | - | no burst figures ($(tail -n 1 "$work/burst-$client-$transport.log")) |"
        failed=1
        continue
      fi
      # shellcheck disable=SC2086
      set -- $figures
      target=
      if [ "$client" = reference ]; then
        case "$transport" in
          stdio) limit=100 ;;
          streamable-http) limit=1000 ;;
          *) limit= ;;
        esac
        [ -z "$limit" ] || target=$(awk -v t="$2" -v l="$limit" 'BEGIN { printf "%s %d ms", (t < l ? "met: under" : "MISSED: over"), l }')
      fi
      echo "| $(client_label "$client") | $transport | $1 | $2 | $3 | $target |"
    done
  done
  echo
  echo "\`bursts\` of the case in \$W/burst-*/results.json holds the same figures."
  echo
  echo '```sh'
  echo "cp -R fixtures \$W/fixtures-$pings   # then \"repeat\": $pings in \$W/fixtures-$pings/scenarios/ping/burst.json"
  for client in $(clients); do burst_command "$client" "$pings"; done
  echo '```'
}

# ---- loopback ----

# loopback_figure NAME: "posts ms connections" of the bench's line for server NAME.
loopback_figure() {
  sed -n "s|^$1: \([0-9]*\)/[0-9]* answered 202, \([0-9.]*\) ms, [0-9.]* ms per POST, \([0-9]*\) connection.*|\1 \2 \3|p" "$work/loopback.log"
}

# loopback_row LABEL "posts ms connections" CLOSE-MS KEEP-ALIVE-MS: a row with both ratios.
loopback_row() {
  # shellcheck disable=SC2086
  set -- "$1" $2 "$3" "$4"
  awk -v what="$1" -v n="$2" -v ms="$3" -v c="$4" -v by_close="$5" -v by_keep="$6" 'BEGIN {
    printf "| %s | %d | %.1f | %.4f | %s | %.2f | %.2f |\n", what, n, ms, ms / n, c,
      (by_close > 0 ? ms / by_close : 0), (by_keep > 0 ? ms / by_keep : 0) }'
}

section_loopback() {
  echo
  posts=10000
  $quick && posts=100
  echo "## loopback: the reference client's $posts pong POSTs, mock server against a bare cpp-httplib server"
  echo
  if ! { [ -s "$work/flood-streamable-http.json" ] || flood_script streamable-http; }; then
    trouble "no resolved streamable-http script to run the HTTP mock server with"
    return
  fi
  mkdir -p "$work/loopback-evidence"
  "$loopback" --posts "$posts" --mock-server "$build/bin/mcp-mock-http-server" \
    --script "$work/flood-streamable-http.json" --evidence-dir "$work/loopback-evidence" \
    >"$work/loopback.log" 2>&1 || true
  burst_fixtures "$posts" || true
  burst=$(burst_run reference streamable-http "$posts")
  close=$(loopback_figure bare-close)
  keep=$(loopback_figure bare-keep-alive)
  mock=$(loopback_figure mock-server)
  if [ -z "$close" ] || [ -z "$keep" ] || [ -z "$mock" ] || [ -z "$burst" ]; then
    trouble "loopback: $(tail -n 1 "$work/loopback.log"); burst: ${burst:-none}"
    return
  fi
  close_ms=$(echo "$close" | awk '{ print $2 }')
  keep_ms=$(echo "$keep" | awk '{ print $2 }')
  echo "| what | POSTs | wall ms | ms per POST | connections | / bare close | / bare keep-alive |"
  echo "|---|---|---|---|---|---|---|"
  loopback_row "reference client, ping/burst on streamable-http: first ping to last pong" \
    "$(echo "$burst" | awk '{ split($1, p, "/"); print p[1], $2, p[1] }')" "$close_ms" "$keep_ms"
  loopback_row "mock server, the pong POSTs alone (after initialize)" "$mock" "$close_ms" "$keep_ms"
  loopback_row "bare cpp-httplib server, 202 and Connection: close" "$close" "$close_ms" "$keep_ms"
  loopback_row "bare cpp-httplib server, keep-alive (one connection, TCP_NODELAY)" "$keep" "$close_ms" "$keep_ms"
  echo
  echo "Each POST is a pong's body, one after another on a new connection with a new cpp-httplib"
  echo "client, as the reference client posts each pong (keep-alive: one client for all). The"
  echo "burst row is the runner's \`burst\` line; the others are mcp-http-loopback-bench's."
  echo
  echo '```sh'
  shown "$loopback --posts $posts --mock-server $build/bin/mcp-mock-http-server --script $work/flood-streamable-http.json --evidence-dir $work/loopback-evidence"
  burst_command reference "$posts" | sed 's/--transport T/--transport streamable-http/'
  echo '```'
}

# ---- flood ----

# A resolved script for a mock server of transport T that only serves (serve_defaults): taken
# from a real run's evidence, so that it stays what resolve_script() writes.
flood_script() {
  "$runner" run --scenario ping/id/zero --transport "$1" --jobs 1 \
    --report-dir "$work/flood-$1-source" -- "$reference" >/dev/null 2>&1 || true
  source=$work/flood-$1-source/cases/$1/ping/id/zero/script.json
  [ -s "$source" ] || return 1
  jq '.script = [{"serve_defaults": {}}]' "$source" >"$work/flood-$1.json"
}

# flood_stdio NAME GENERATOR...: runs the stdio mock server under /usr/bin/time with the
# generator's output as its stdin; prints "NAME peak-RSS-KiB seconds exit".
flood_stdio() {
  name=$1
  shift
  rm -rf "$work/flood-evidence"
  mkdir "$work/flood-evidence"
  "$@" | /usr/bin/time -f '%M %e %x' -o "$work/flood.time" "$build/bin/mcp-mock-stdio-server" \
    --script "$work/flood-stdio.json" --evidence-dir "$work/flood-evidence" >/dev/null 2>&1 || true
  echo "$name $(tail -n 1 "$work/flood.time" 2>/dev/null)"
}

section_flood() {
  echo
  mib=1024
  $quick && mib=16
  bytes=$((mib * 1024 * 1024))
  echo "## flood: the mock servers' peak RSS while a client sends $mib MiB"
  echo
  echo "| server | what the client sends | peak RSS MiB | s | target |"
  echo "|---|---|---|---|---|"
  row() {
    awk -v server="$1" -v what="$2" -v kib="$3" -v s="$4" 'BEGIN {
      printf "| %s | %s | %.1f | %s | %s |\n", server, what, kib / 1024, s,
        (kib < 65536 ? "met: under 64 MiB" : "MISSED: over 64 MiB") }'
  }
  if flood_script stdio; then
    # shellcheck disable=SC2046
    set -- $(flood_stdio x head -c "$bytes" /dev/zero)
    if [ $# -ge 3 ]; then row stdio "$mib MiB without a newline" "$2" "$3"; else trouble "stdio flood: no peak RSS"; fi
    # 4 KiB garbage lines: each is recorded in the transcript, as a client's line is.
    head -c 4095 /dev/zero | tr '\0' g >"$work/garbage-line"
    # shellcheck disable=SC2016,SC2046 # expanded by that sh; the figures are words
    set -- $(flood_stdio x sh -c 'yes "$(cat "$1")" | head -c "$2"' sh "$work/garbage-line" "$bytes")
    if [ $# -ge 3 ]; then row stdio "$mib MiB of 4 KiB garbage lines" "$2" "$3"; else trouble "stdio flood: no peak RSS"; fi
  else
    trouble "no resolved stdio script to run the stdio mock server with"
  fi
  if flood_script streamable-http; then
    rm -rf "$work/flood-evidence"
    mkdir "$work/flood-evidence"
    /usr/bin/time -f '%M %e %x' -o "$work/flood-http.time" "$build/bin/mcp-mock-http-server" \
      --script "$work/flood-streamable-http.json" --evidence-dir "$work/flood-evidence" \
      >"$work/flood-http.url" 2>/dev/null &
    server=$!
    tries=0
    while ! [ -s "$work/flood-http.url" ] && [ "$tries" -lt 100 ]; do
      sleep 0.1
      tries=$((tries + 1))
    done
    url=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' "$work/flood-http.url")
    if [ -n "$url" ]; then
      start=$(date +%s%N)
      # The server answers once the body passes its cap; -w says what it answered and how
      # much of the body had gone by then.
      answer=$(head -c "$bytes" /dev/zero | curl -s -o /dev/null -m 120 -X POST -T - \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -w 'HTTP %{http_code} after %{size_upload} bytes' "$url" 2>/dev/null || true)
      one=$(($(date +%s%N) - start))
      # Many POSTs: 1 MiB bodies, 32 at a time.
      head -c $((1024 * 1024)) /dev/zero >"$work/one-mib"
      start=$(date +%s%N)
      count=$((mib))
      seq "$count" | sed "s|.*|url = \"$url\"\\noutput = \"/dev/null\"|" >"$work/flood-urls"
      curl -s -Z --parallel-max 32 -m 300 -X POST --data-binary @"$work/one-mib" \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -K "$work/flood-urls" 2>/dev/null || true
      many=$(($(date +%s%N) - start))
    else
      one=0
      many=0
      answer=
      trouble "the HTTP mock server printed no URL"
    fi
    # The mock server itself, not /usr/bin/time: time then reports when it has ended.
    kill -TERM "$(cat "$work/flood-evidence/mock.pid")" 2>/dev/null || true
    wait "$server" || true
    # /usr/bin/time measures the whole life of the server: the peak of both floods.
    # shellcheck disable=SC2046
    set -- $(tail -n 1 "$work/flood-http.time") - -
    if [ "$1" = - ]; then
      trouble "no peak RSS of the HTTP mock server (/usr/bin/time wrote nothing)"
      return
    fi
    row streamable-http "one $mib MiB POST body (${answer:-no answer}, $(awk -v n="$one" 'BEGIN { printf "%.1f s", n / 1e9 }')), then $mib POSTs of 1 MiB, 32 at a time ($(awk -v n="$many" 'BEGIN { printf "%.1f s", n / 1e9 }'))" "$1" "$2"
  else
    trouble "no resolved streamable-http script to run the HTTP mock server with"
  fi
  echo
  echo '```sh'
  echo "# \$W/flood-T.json: script.json of a ping/id/zero run on T, its script replaced by [{\"serve_defaults\": {}}]"
  shown "head -c $bytes /dev/zero | /usr/bin/time -f %M $build/bin/mcp-mock-stdio-server --script $work/flood-stdio.json --evidence-dir $work/flood-evidence"
  shown "yes \"\$(head -c 4095 /dev/zero | tr '\\0' g)\" | head -c $bytes | /usr/bin/time -f %M $build/bin/mcp-mock-stdio-server --script $work/flood-stdio.json --evidence-dir $work/flood-evidence"
  shown "/usr/bin/time -f %M $build/bin/mcp-mock-http-server --script $work/flood-streamable-http.json --evidence-dir $work/flood-evidence &   # prints {\"url\":URL}"
  echo "head -c $bytes /dev/zero | curl -s -o /dev/null -X POST -T - -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' URL"
  echo "curl -s -Z --parallel-max 32 -X POST --data-binary @one-mib -K urls   # $mib entries: url = \"URL\", output = \"/dev/null\""
  echo '```'
}

for section in $sections; do
  "section_$section"
done
exit "$failed"
