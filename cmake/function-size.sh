#!/bin/sh
# Fails when a function of the project's C++ is longer than 80 lines (clang-tidy's
# readability-function-size, LineThreshold 80: the lines of its body, blank lines and comments
# included), unless cmake/function-size-allow.txt lists it with its reason. The ctest test
# style/function-size runs it; by hand:
#
#   sh cmake/function-size.sh [BUILD_DIR]        default BUILD_DIR: <repo>/build
#
# It checks every translation unit of the build folder's compile_commands.json that is the
# project's (a source below the repository, or a unity build's grouped unit), with the
# project's headers they include. A unit's findings are kept in BUILD_DIR/function-size-cache
# under a hash of what decides them (the clang-tidy version, the unit's compile command, its
# text and that of every source it groups, every header of the project), so a second run
# checks again only what changed. Prints each function over the limit as
# <file>:<line>: <function>: <N> lines, and each allow-list entry that matches none.
# Exit status: 0 none, 1 some, 2 no compile_commands.json. Without clang-tidy it prints
# "style check skipped" and exits 0. Environment: CLANG_TIDY (the program; default
# clang-tidy-14, else clang-tidy), MCP_PING_JOBS (default: the cores). docs/development.md.
set -eu

limit=80
config="{Checks: '-*,readability-function-size', CheckOptions: [{key: readability-function-size.LineThreshold, value: $limit}]}"
# --system-headers: a TEST body is a function that GoogleTest's macro, in a system header,
# declares; without it, clang-tidy counts its findings as the system header's and drops them.
flags="--quiet --system-headers"

# The findings of a clang-tidy run on stdin, for the files below <root>/ outside build
# folders and installed dependencies: "<file>:<line>: <function>: <N> lines". A warning
# "<file>:<l>:<c>: warning: function '<name>' exceeds ..." comes with the note
# "<file>:<l>:<c>: note: <N> lines including whitespace and comments (threshold 80)". A unit
# clang cannot compile is a finding too: nothing of it was checked.
findings() { # <root>
  awk -v root="$1/" -v q="'" '
    / error: .*\[clang-diagnostic-error\]$/ && !broken {
      broken = 1; print $0 " (clang-tidy could not compile the unit)"
    }
    / warning: function .* exceeds recommended size/ {
      split($0, at, ":"); file = at[1]; line = at[2]
      name = substr($0, index($0, q) + 1); name = substr(name, 1, index(name, q) - 1)
    }
    / note: [0-9]+ lines including whitespace/ && file != "" {
      count = $0; sub(/^.* note: /, "", count); sub(/ lines including.*/, "", count)
      path = substr(file, length(root) + 1)
      if (index(file, root) == 1 && path !~ /^build[^\/]*\// &&
          path !~ /(^|\/)(node_modules|target|\.venv)\//)
        print path ":" line ": " name ": " count " lines"
      file = ""
    }'
}

# One unit, line <n> of <work>/units: its findings, from the cache or from clang-tidy.
check_unit() { # <n> <work> <cache> <tidy> <build> <root>
  n=$1 work=$2 cache=$3 tidy=$4 build=$5 root=$6
  unit=$(sed -n "${n}p" "$work/units" | cut -f1)
  grouped=""
  case $unit in */Unity/unity_*) grouped=$(sed -n 's|^#include "\(/.*\)"$|\1|p' "$unit") ;; esac
  key=$({
    cat "$work/common"
    sed -n "${n}p" "$work/units" | cut -f2-
    cat "$unit"
    for source in $grouped; do cat "$source"; done
  } | sha256sum | cut -d' ' -f1)
  if [ ! -f "$cache/$key" ]; then
    # shellcheck disable=SC2086 # $flags: one option a word
    "$tidy" -p "$build" $flags --header-filter='.*' --config="$config" "$unit" 2>/dev/null |
      findings "$root" >"$cache/$key.$$"
    if grep -q 'could not compile' "$cache/$key.$$"; then
      cat "$cache/$key.$$" && rm -f "$cache/$key.$$"  # checked again next time
      return
    fi
    mv "$cache/$key.$$" "$cache/$key"
  fi
  cat "$cache/$key"
}

if [ "${1:-}" = --unit ]; then
  shift
  check_unit "$@"
  exit 0
fi

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
database=$build/compile_commands.json
allow=$root/cmake/function-size-allow.txt
if [ ! -f "$database" ]; then
  echo "function-size.sh: no $database; configure first: cmake -S $root -B $build" >&2
  exit 2
fi
tidy=${CLANG_TIDY:-}
if [ -z "$tidy" ]; then
  tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
fi
if [ -z "$tidy" ]; then
  echo "style check skipped: clang-tidy not found (Debian: apt-get install clang-tidy)"
  exit 0
fi
jobs=${MCP_PING_JOBS:-$(nproc)}
cache=$build/function-size-cache
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# The project's units with their compile commands: the sources below the repository outside
# build folders and installed dependencies, and the build's unity units.
awk -v root="$root/" -v build="$build/" '
  /^ *"command": / { command = $0 }
  /^ *"file": / {
    file = $0; sub(/^ *"file": "/, "", file); sub(/",?$/, "", file)
    path = substr(file, length(root) + 1)
    mine = index(file, root) == 1 && path !~ /^build[^\/]*\// &&
           path !~ /(^|\/)(node_modules|target|\.venv)\//
    unity = index(file, build) == 1 && file ~ /\/Unity\/unity_[^\/]*$/
    if (mine || unity) print file "\t" command
  }' "$database" | sort -u >"$work/units"
if [ ! -s "$work/units" ]; then
  echo "function-size.sh: $database names no source of $root" >&2
  exit 2
fi

# What every unit's findings depend on besides its own text: the check, the tool, the headers.
{
  echo "$config $flags"
  "$tidy" --version
  find "$root" \( -path "$root/build*" -o -name node_modules -o -name target -o -name .venv \
    -o -name .git \) -prune -o \( -name '*.hpp' -o -name '*.h' \) -type f -print | sort |
    xargs sha256sum
} | sha256sum >"$work/common"

units=$(wc -l <"$work/units")
cached=$(find "$cache" -type f | wc -l)
started=$(date +%s)
echo "function-size.sh: $units units, $("$tidy" --version | grep -i version | head -n 1 | sed 's/^ *//')" >&2
# One output file per unit, so that parallel runs do not interleave their lines.
seq 1 "$units" | xargs -P "$jobs" -I '{}' sh -c 'sh "$0" --unit "$@" >"$2/found.$1"' \
  "$0" '{}' "$work" "$cache" "$tidy" "$build" "$root"
cat "$work"/found.* | sort -u | sort -t: -k1,1 -k2,2n >"$work/over"
echo "function-size.sh: $(($(date +%s) - started)) s ($(($(find "$cache" -type f | wc -l) - cached)) units checked, the rest cached)" >&2

# The allow-list: "<file> <function>: <why>" per line; # starts a comment.
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$allow" | sed 's/:.*//' | sort -u >"$work/allowed"
sed 's/^\([^:]*\):[0-9]*: \(.*\): [0-9]* lines$/\1 \2/' "$work/over" | sort -u >"$work/over-keys"
status=0
while read -r line; do
  key=$(echo "$line" | sed 's/^\([^:]*\):[0-9]*: \(.*\): [0-9]* lines$/\1 \2/')
  if [ "$key" = "$line" ]; then
    echo "$line"
    status=1
  elif ! grep -qxF "$key" "$work/allowed"; then
    echo "$line (limit $limit)"
    status=1
  fi
done <"$work/over"
comm -23 "$work/allowed" "$work/over-keys" >"$work/stale"
while read -r entry; do
  echo "cmake/function-size-allow.txt: '$entry' is not over $limit lines: remove it"
  status=1
done <"$work/stale"
if [ "$status" -ne 0 ]; then
  echo "function-size.sh: split these into functions with one job each (docs/development.md)" >&2
  exit 1
fi
echo "function-size.sh: no function over $limit lines but the allow-list's $(wc -l <"$work/allowed")"
