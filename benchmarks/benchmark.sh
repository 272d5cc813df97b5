#!/bin/sh
# shellcheck disable=SC2317 # the sections are functions called by name ("section_$section")
# Measures the suite and prints a dated Markdown report on stdout, each figure with the
# command that produced it (docs/performance.md).
#
#   benchmarks/benchmark.sh [--quick] [SECTION...]
#
# SECTION: catalogue, overhead, latency, burst, flood (default: all five, in that order).
# --quick runs every section small (one case, few runs, 100-ping bursts, 16 MiB floods): a
# smoke run of the script itself whose figures mean nothing. The build folder is
# MCP_PING_BUILD_DIR (default <repo>/build), already built. The TypeScript SDK is measured
# too when node and drivers/typescript/node_modules are there (not with --quick). Needs bash
# (CPU times), jq (results.json) and curl (the HTTP flood). Exit status 0, 1 when a
# measurement could not be made, 2 for a bad command line or build folder.
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
    catalogue | overhead | latency | burst | flood) sections="$sections $word" ;;
    *) usage ;;
  esac
done
[ -n "$sections" ] || sections="catalogue overhead latency burst flood"

root=$(cd "$(dirname "$0")/.." && pwd)
build=${MCP_PING_BUILD_DIR:-$root/build}
runner=$build/bin/mcp-ping-conformance
reference=$build/bin/mcp-reference-driver
for exe in "$runner" "$reference" "$build/bin/mcp-mock-stdio-server" \
  "$build/bin/mcp-mock-http-server"; do
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

section_overhead() {
  echo
  echo "## overhead: one short case (ping/id/zero) alone, reference client"
  echo
  runs=10
  $quick && runs=2
  transports="stdio streamable-http sse"
  $quick && transports=stdio
  echo "Medians over $runs runs, each as a ctest test runs it: with --no-precheck, as the ctest"
  echo "module checks the driver once per ctest run (a plain one-case run starts the driver a"
  echo "second time, beside the case, for that check). runner + mock = the runner and the mock"
  echo "server, without the driver (for stdio the driver starts the mock server, so its figure"
  echo "contains the mock's)."
  echo
  echo "| transport | wall ms | CPU ms, all | runner + mock ms | mock server ms | driver ms | verdicts |"
  echo "|---|---|---|---|---|---|---|"
  for transport in $transports; do
    : >"$work/overhead.rows"
    passes=0
    i=0
    while [ "$i" -lt "$runs" ]; do
      i=$((i + 1))
      : >"$work/mcp-mock-stdio-server.times"
      : >"$work/mcp-mock-http-server.times"
      : >"$work/driver.times"
      if "$work/rusage" "$work/overhead.times" "$work/bin/mcp-ping-conformance" run \
        --scenario ping/id/zero --transport "$transport" --jobs 1 --no-precheck \
        --report-dir "$work/overhead" \
        -- "$work/rusage" "$work/driver.times" "$reference" >"$work/overhead.log" 2>&1; then
        passes=$((passes + 1))
      fi
      case "$transport" in
        stdio) mock=$work/mcp-mock-stdio-server.times ;;
        *) mock=$work/mcp-mock-http-server.times ;;
      esac
      { [ -s "$mock" ] && [ -s "$work/driver.times" ]; } || continue
      total=$(last_field 2 "$work/overhead.times")
      driver=$(last_field 2 "$work/driver.times")
      mock_cpu=$(last_field 2 "$mock")
      # stdio: the driver waited for the mock server, so the driver's figure holds it.
      if [ "$transport" = stdio ]; then
        echo "$(last_field 1 "$work/overhead.times") $total $((total - driver + mock_cpu)) $mock_cpu $((driver - mock_cpu))"
      else
        echo "$(last_field 1 "$work/overhead.times") $total $((total - driver)) $mock_cpu $driver"
      fi >>"$work/overhead.rows"
    done
    if [ ! -s "$work/overhead.rows" ]; then
      echo "| $transport | - | - | - | - | - | $passes/$runs passed |"
      failed=1
      continue
    fi
    row="| $transport"
    for column in 1 2 3 4 5; do
      row="$row | $(awk -v c="$column" '{ print $c }' "$work/overhead.rows" | median)"
    done
    echo "$row | $passes/$runs passed |"
  done
  echo
  echo '```sh'
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

section_burst() {
  echo
  pings=10000
  $quick && pings=100
  echo "## burst: $pings pings at once (ping/burst with \"repeat\": $pings)"
  echo
  cp -R "$root/fixtures" "$work/fixtures"
  burst=$work/fixtures/scenarios/ping/burst.json
  sed -e "s/\"repeat\": 1000,/\"repeat\": $pings,/" -e "s/^  \"title\": \"1,000 pings/  \"title\": \"$pings pings/" \
    "$root/fixtures/scenarios/ping/burst.json" >"$burst"
  grep -q "\"repeat\": $pings," "$burst" || {
    trouble "fixtures/scenarios/ping/burst.json has no \"repeat\": 1000 to scale"
    return
  }
  # Its pongs get the burst cap (burst_cap_ms, 10 s), scaled with the burst's size.
  multiplier=$(awk -v p="$pings" 'BEGIN { m = p / 1000; print (m < 1 ? 1 : m) }')
  echo "| client | transport | pongs | time to last pong ms | pongs/s | target |"
  echo "|---|---|---|---|---|---|"
  for client in $(clients); do
    driver=$(driver_of "$client")
    # The call pending during the burst must not time out first (the driver's default: 3 s).
    [ "$client" = reference ] && driver="$driver --request-timeout-ms 120000"
    for transport in stdio streamable-http sse; do
      log=$work/burst-$client-$transport.log
      # shellcheck disable=SC2086
      "$runner" run --fixtures "$work/fixtures" --scenario ping/burst --transport "$transport" \
        --jobs 1 --timeout-multiplier "$multiplier" --report-dir "$work/burst-$client-$transport" \
        -- $driver >"$log" 2>&1 || true
      # "burst ping/burst, T: P/N pongs, the last X ms after the first ping, R pongs/s"
      figures=$(sed -n "s|^burst ping/burst, $transport: \([0-9]*/[0-9]*\) pongs, the last \([0-9.]*\) ms after the first ping, \([0-9.]*\) pongs/s.*|\1 \2 \3|p" "$log")
      if [ -z "$figures" ]; then
        echo "| $(client_label "$client") | $transport | - | - | - | no burst figures ($(tail -n 1 "$log")) |"
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
  echo "cp -R fixtures \$W/fixtures   # then \"repeat\": $pings in \$W/fixtures/scenarios/ping/burst.json"
  for client in $(clients); do
    driver=$(driver_of "$client")
    [ "$client" = reference ] && driver="$driver --request-timeout-ms 120000"
    shown "$runner run --fixtures $work/fixtures --scenario ping/burst --transport T --jobs 1 --timeout-multiplier $multiplier --report-dir $work/burst -- $driver"
  done
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
