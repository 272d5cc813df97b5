#!/bin/sh
# Sets up, builds and runs mcp-ping-conformance on Debian 12. Installs what is missing
# (as root), so it works on a fresh machine and is quick when everything is there.
#
#   cmake/bootstrap.sh suite      the full catalogue against the reference client, with reports
#   cmake/bootstrap.sh test       the project's own tests (ctest), then the sanitized set: CI
#   cmake/bootstrap.sh sanitize   the sanitized set: the unit tests, the reference catalogue
#                                 and a short run of every libFuzzer target, under ASan +
#                                 UBSan, in a clang build in <build>-sanitize
#   cmake/bootstrap.sh tsan       the unit and self-tests, and the catalogue against the
#                                 reference client, under ThreadSanitizer
#   cmake/bootstrap.sh fuzz       the libFuzzer targets of <build>-sanitize, each run for a
#                                 minute over its corpus (docs/fuzzing.md)
#
# Environment: MCP_PING_BUILD_DIR (default <repo>/build), MCP_PING_REPORT_DIR (default
# <build>/report), MCP_PING_JOBS (default: the number of cores), MCP_PING_FUZZ_SECONDS
# (seconds per fuzz target: test 5, sanitize 10, fuzz 60 by default).
set -eu

usage() {
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[ $# -eq 1 ] || usage
mode=$1
case "$mode" in suite | test | sanitize | tsan | fuzz) ;; *) usage ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=${MCP_PING_BUILD_DIR:-$root/build}
jobs=${MCP_PING_JOBS:-$(nproc)}
# Under the sanitizers: the unit tests and the fuzz targets (ctest), then the catalogue
# against the reference client (mock servers, runner and client all instrumented) in one run
# of the runner, which schedules it in a fraction of the time of a ctest test per case. Not
# the self-tests, which run whole catalogues per broken client and take five times their CPU
# there (`tsan` has them), nor the shell-script tests, which have nothing to instrument.
sanitized_labels='unit|fuzz'
sanitized_skipped='^(benchmark|docs|style|soak|package|cdash|junit)/'

# Debian 12 packages the suite builds with; the tests add GoogleTest, xmllint (the JUnit
# schema test), clang-format 14 and clang-tidy 14 (the tests style/clang-format and
# style/function-size, and .ci/run's clang-tidy step, docs/development.md),
# Python 3 (the Python driver kit's tests, drivers/kit/README.md; its venv module for the
# Python SDK driver), and jq, curl and GNU time
# (benchmarks/benchmark.sh, whose report the test benchmark/report-shape checks).
packages="cmake ninja-build g++ pkg-config libboost1.81-dev nlohmann-json3-dev
libcpp-httplib-dev libyaml-cpp-dev libvalijson-dev"
if [ "$mode" != suite ]; then
  packages="$packages libgtest-dev libgmock-dev libxml2-utils"
fi
if [ "$mode" = test ] || [ "$mode" = sanitize ] || [ "$mode" = fuzz ]; then
  # The sanitized build: clang, and its sanitizer and libFuzzer runtimes (a separate package on
  # some Debian 12 images, where clang alone cannot link -fsanitize=address).
  packages="$packages clang libclang-rt-14-dev"
fi
if [ "$mode" = test ]; then
  packages="$packages clang-format clang-tidy python3 python3-venv jq curl time"
fi
missing=""
for package in $packages; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $package"
  fi
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "bootstrap: missing packages:$missing (run as root, or install them)" >&2
    exit 2
  fi
  echo "bootstrap: installing$missing"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

# A driver built by Maven: a shaded jar from drivers/<folder>/pom.xml (every version fixed), when
# Maven and a JDK are there; built again only when the POM or a source is newer than the jar.
maven_driver() { # <folder under drivers/> <jar in its target/> <name in messages>
  maven_dir="$root/drivers/$1"
  maven_jar="$maven_dir/target/$2"
  if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
    echo "bootstrap: $3 driver skipped (no mvn or no java on PATH)"
  elif [ ! -f "$maven_jar" ] || [ -n "$(find "$maven_dir/pom.xml" "$maven_dir/src" -newer "$maven_jar" 2>/dev/null)" ]; then
    echo "bootstrap: mvn package in drivers/$1"
    if ! (cd "$maven_dir" && mvn -q -B package); then
      rm -f "$maven_jar"
      echo "bootstrap: mvn package failed for drivers/$1" >&2
      exit 1
    fi
  fi
}

# The TypeScript SDK driver's pinned dependencies (drivers/typescript/package-lock.json), so
# the tests also validate that client. Node.js from Debian (nodejs, npm) when none is there.
if [ "$mode" = test ]; then
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm
    fi
  fi
  lock="$root/drivers/typescript/package-lock.json"
  stamp="$root/drivers/typescript/node_modules/.package-lock.json"
  if command -v npm >/dev/null 2>&1 && { [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ]; }; then
    echo "bootstrap: npm ci in drivers/typescript"
    (cd "$root/drivers/typescript" && npm ci --no-audit --no-fund --loglevel=error)
  fi
  # The TypeScript SDK's v2 client (drivers/typescript-v2/package-lock.json), the same way.
  lock="$root/drivers/typescript-v2/package-lock.json"
  stamp="$root/drivers/typescript-v2/node_modules/.package-lock.json"
  if command -v npm >/dev/null 2>&1 && { [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ]; }; then
    echo "bootstrap: npm ci in drivers/typescript-v2"
    (cd "$root/drivers/typescript-v2" && npm ci --no-audit --no-fund --loglevel=error)
  fi
  # The official Python SDK's driver: a venv with exactly drivers/python-sdk/requirements.txt
  # (hashes required), made again when the lock is newer than the venv's copy of it.
  venv="$root/drivers/python-sdk/.venv"
  lock="$root/drivers/python-sdk/requirements.txt"
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    echo "bootstrap: Python SDK driver skipped (python3 has no venv module: install python3-venv)"
  elif [ ! -f "$venv/requirements.txt" ] || [ "$lock" -nt "$venv/requirements.txt" ]; then
    echo "bootstrap: pip install --require-hashes in drivers/python-sdk/.venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes --no-deps \
      -r "$lock"; then
      rm -rf "$venv"
      echo "bootstrap: pip install failed for drivers/python-sdk" >&2
      exit 1
    fi
    cp "$lock" "$venv/requirements.txt"
  fi
  # The official Go SDK's driver, built from drivers/go-sdk/go.mod and go.sum (checked hashes)
  # when Go is there; `go build` is quick when nothing changed.
  if command -v go >/dev/null 2>&1; then
    echo "bootstrap: go build in drivers/go-sdk"
    (cd "$root/drivers/go-sdk" && go build -o go-sdk-driver .)
  else
    echo "bootstrap: Go SDK driver skipped (no go on PATH)"
  fi
  # The official Java and Kotlin SDKs' drivers, each a shaded jar from its POM.
  maven_driver java-sdk java-sdk-driver.jar "Java SDK"
  maven_driver kotlin-sdk kotlin-sdk-driver.jar "Kotlin SDK"
  # The official Rust SDK's driver (rmcp), built from drivers/rust-sdk/Cargo.lock (every
  # crate's checksum checked) when cargo is there: the locked crates are fetched for this
  # host (nothing is downloaded when they are cached), then built offline. Quick when nothing
  # changed; a cold build compiles 115 crates (docs/clients/rust-sdk.md, "Cost").
  if command -v cargo >/dev/null 2>&1; then
    echo "bootstrap: cargo build --release in drivers/rust-sdk"
    (cd "$root/drivers/rust-sdk" &&
      cargo fetch --locked --quiet --target "$(rustc -vV | sed -n 's/^host: //p')" &&
      cargo build --release --locked --offline --quiet)
  else
    echo "bootstrap: Rust SDK driver skipped (no cargo on PATH)"
  fi
fi

configure() { # <build dir> [cmake options...]
  dir=$1
  shift
  # A unity build: a few large translation units per target compile in about a third of the
  # time, since nlohmann/json and GoogleTest are then instantiated once per unit, not per file.
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 "$@" >/dev/null
}

configure_and_build() { # <build dir> [cmake options...]
  configure "$@" -DMCP_PING_BUILD_TESTS=ON
  cmake --build "$1" -j "$jobs"
}

# The sanitized build: clang, every library with AddressSanitizer, UBSan and libFuzzer's
# coverage (MCP_PING_FUZZ), the tests and the fuzz targets, in <build>-sanitize. One build
# serves the sanitizers and the fuzzers.
build_sanitized() { # <seconds per fuzz target> <libFuzzer seed, 0 for a random one>
  configure_and_build "$build-sanitize" -DCMAKE_CXX_COMPILER=clang++ -DMCP_PING_FUZZ=ON \
    -DMCP_PING_FUZZ_SECONDS="${MCP_PING_FUZZ_SECONDS:-$1}" -DMCP_PING_FUZZ_SEED="$2"
}

# The MCP specification's schemas beside the checkout (../shared/spec-schemas), when there:
# every catalogue run then validates the client's messages (--schemas, docs/verdicts.md). The
# positional parameters become those options (none without the folder).
schemas_dir=$(dirname "$root")/shared/spec-schemas
if [ -d "$schemas_dir" ]; then
  set -- --schemas "$schemas_dir"
else
  set --
fi

run_sanitized_set() { # [--schemas DIR]
  set_status=0
  ctest --test-dir "$build-sanitize" -j "$jobs" --output-on-failure --timeout 300 \
    -L "$sanitized_labels" -E "$sanitized_skipped" \
    --output-junit "$build-sanitize/ctest-junit.xml" || set_status=1
  # --jobs 4: instrumented cases need more CPU each (docs/design-decisions.md, "Parallelism").
  "$build-sanitize/bin/mcp-ping-conformance" run --strict --jobs 4 "$@" \
    --report-dir "$build-sanitize/report" \
    -- "$build-sanitize/bin/mcp-reference-driver" --keepalive-ms 1000 || set_status=1
  return "$set_status"
}

case "$mode" in
  suite)
    # Only what the suite runs: the runner, the mock servers and the reference driver. A
    # later `test` in the same build folder builds the rest.
    configure "$build" -DMCP_PING_BUILD_TESTS=OFF
    cmake --build "$build" -j "$jobs" --target mcp-ping-conformance mcp-mock-stdio-server \
      mcp-mock-http-server mcp-reference-driver
    report=${MCP_PING_REPORT_DIR:-$build/report}
    exec "$build/bin/mcp-ping-conformance" run --strict "$@" --report-dir "$report" \
      -- "$build/bin/mcp-reference-driver" --keepalive-ms 1000
    ;;
  test)
    # Every test in the plain build, then the sanitized set (as `sanitize` with 5 s per fuzz
    # target). Both run even when the first fails; the status is the worse of the two.
    configure_and_build "$build"
    status=0
    ctest --test-dir "$build" -j "$jobs" --output-on-failure --timeout 300 \
      --output-junit "$build/ctest-junit.xml" || status=1
    build_sanitized 5 1
    run_sanitized_set "$@" || status=1
    exit "$status"
    ;;
  sanitize)
    build_sanitized 10 1
    run_sanitized_set "$@"
    ;;
  tsan)
    # halt_on_error: a data race fails the test that found it, with the report on stderr.
    configure_and_build "$build-tsan" -DMCP_PING_TSAN=ON
    TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1 suppressions=$root/cmake/tsan.supp} \
      exec ctest --test-dir "$build-tsan" -j "$jobs" --output-on-failure --timeout 300 \
      -L 'unit|selftest|mcp-ping-conformance' -LE third-party
    ;;
  fuzz)
    # The sanitized build's fuzz targets, each for MCP_PING_FUZZ_SECONDS (a reconfigure, no
    # recompilation, when that build is there).
    build_sanitized 60 0
    exec ctest --test-dir "$build-sanitize" -j "$jobs" --output-on-failure -L fuzz
    ;;
esac
