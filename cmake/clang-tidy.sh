#!/bin/sh
# Runs clang-tidy 14 (Debian 12's) with the repository's .clang-tidy over the project's own
# C++ sources, as compiled in a configured build folder (its compile_commands.json).
#
#   sh cmake/clang-tidy.sh [BUILD_DIR]        default BUILD_DIR: <repo>/build
#
# Prints each finding once (a header's findings come from every file that includes it) as
# <file>:<line>:<col>: <message> [<check>], then a count per file. Exit status: 0 no finding,
# 1 findings, 2 no compile_commands.json or no clang-tidy. Environment: CLANG_TIDY (the
# program; default clang-tidy-14, else clang-tidy), MCP_PING_JOBS (default: the cores).
# docs/development.md.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
database=$build/compile_commands.json
if [ ! -f "$database" ]; then
  echo "clang-tidy.sh: no $database; configure first: cmake -S $root -B $build" >&2
  exit 2
fi
tidy=${CLANG_TIDY:-}
if [ -z "$tidy" ]; then
  tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
fi
if [ -z "$tidy" ]; then
  echo "clang-tidy.sh: clang-tidy 14 not found (Debian: apt-get install clang-tidy)" >&2
  exit 2
fi
jobs=${MCP_PING_JOBS:-$(nproc)}

# The project's own translation units: below the repository, outside build folders and
# node_modules.
files=$(sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' "$database" | grep "^$root/" |
  grep -v -e "^$root/build[^/]*/" -e "/node_modules/" | sort -u)
if [ -z "$files" ]; then
  if grep -q '/Unity/unity_' "$database"; then
    # The bootstrap's folders are unity builds: their database names the grouped units only.
    echo "clang-tidy.sh: $build is a unity build; configure a folder file by file (no build needed):" >&2
    echo "  cmake -S $root -B $root/build-tidy -DCMAKE_UNITY_BUILD=OFF && sh $0 $root/build-tidy" >&2
  else
    echo "clang-tidy.sh: $database names no source of $root" >&2
  fi
  exit 2
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM
echo "clang-tidy.sh: $(echo "$files" | wc -l) files, $("$tidy" --version | grep -i version | head -n 1 | sed 's/^ *//')" >&2
# One output file per source, so that parallel runs do not interleave their lines.
echo "$files" | xargs -P "$jobs" -I '{}' sh -c \
  '"$1" -p "$2" --quiet "$3" >"$4/$(echo "$3" | tr / _).txt" 2>/dev/null || true' \
  sh "$tidy" "$build" '{}' "$out"

cat "$out"/*.txt | grep -E '^/.+:[0-9]+:[0-9]+: (warning|error): .*\[[^]]+\]$' |
  sed -e "s|^$root/||" -e 's/,-warnings-as-errors\]$/]/' | sort -u | sort -t: -k1,1 -k2,2n -k3,3n \
  >"$out/findings" || true
if [ ! -s "$out/findings" ]; then
  echo "clang-tidy.sh: no findings" >&2
  exit 0
fi
cat "$out/findings"
echo >&2
echo "clang-tidy.sh: $(wc -l <"$out/findings") findings:" >&2
cut -d: -f1 "$out/findings" | sort | uniq -c | sort -rn >&2
exit 1
