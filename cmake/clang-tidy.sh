#!/bin/sh
# Runs clang-tidy 14 (Debian 12's) with the repository's .clang-tidy over the project's own
# C++ sources, as compiled in a configured build folder (its compile_commands.json).
#
#   sh cmake/clang-tidy.sh [BUILD_DIR [FILE...]]     default BUILD_DIR: <repo>/build
#
# With FILEs (paths from the repository's root, as `git diff --name-only` prints them), only
# those are checked: a source as it is compiled; a header through the first compiled source
# that includes it by its path, else on its own with the command clang-tidy infers from the
# sources beside it. A source the folder does not compile (a fuzz target without
# MCP_PING_FUZZ, test data) is named and left.
#
# Prints each finding once (a header's findings come from every file that includes it) as
# <file>:<line>:<col>: <message> [<check>], then a count per file. Exit status: 0 no finding,
# 1 findings, 2 no compile_commands.json or no clang-tidy. Environment: CLANG_TIDY (the
# program; default clang-tidy-14, else clang-tidy), MCP_PING_JOBS (default: the cores),
# MCP_PING_TIDY_BUDGET (seconds: no file starts after them; those left are named, sources
# before tests; default: none). docs/development.md.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
[ $# -eq 0 ] || shift
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

# The first compiled source that includes header <file> (a path from the root) by a path the
# header's ends with, or by its bare name from the header's own folder; else the header.
unit_of_header() { # <file>
  name=$(basename "$1")
  for source in $(echo "$files" | xargs grep -l -F "$name\"" 2>/dev/null || true); do
    for included in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$source"); do
      case "$included" in
        */*) case "/$1" in */"$included") echo "$source" && return ;; esac ;;
        "$name") [ "$(dirname "$source")" = "$root/$(dirname "$1")" ] && echo "$source" && return ;;
      esac
    done
  done
  echo "$root/$1"
}

# Only the units of the FILEs given.
if [ $# -gt 0 ]; then
  units=""
  for file in "$@"; do
    case "$file" in
      *.hpp | *.h) unit=$(unit_of_header "$file") ;;
      *) unit=$(echo "$files" | grep -x -F "$root/$file" || true) ;;
    esac
    if [ -z "$unit" ]; then
      echo "clang-tidy.sh: $file: not compiled in $build: not checked" >&2
    else
      units="$units
$unit"
    fi
  done
  files=$(echo "$units" | sed '/^$/d' | sort -u)
  if [ -z "$files" ]; then
    echo "clang-tidy.sh: nothing to check" >&2
    exit 0
  fi
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM
echo "clang-tidy.sh: $(echo "$files" | wc -l) files, $("$tidy" --version | grep -i version | head -n 1 | sed 's/^ *//')" >&2
# Past the budget no file starts: the sources come before the tests.
budget=${MCP_PING_TIDY_BUDGET:-}
stop_at=$(($(date +%s) + ${budget:-999999}))
files=$({
  echo "$files" | grep -v '/tests/' || true
  echo "$files" | grep '/tests/' || true
})
# One output file per source, so that parallel runs do not interleave their lines.
echo "$files" | xargs -P "$jobs" -I '{}' sh -c \
  'if [ "$(date +%s)" -ge "$5" ]; then echo "$3" >>"$4/left"; exit 0; fi
   "$1" -p "$2" --quiet "$3" >"$4/$(echo "$3" | tr / _).txt" 2>/dev/null || true' \
  sh "$tidy" "$build" '{}' "$out" "$stop_at"
touch "$out/none.txt"  # so that the cat below has a file when no file ran
if [ -s "$out/left" ]; then
  echo "clang-tidy.sh: not checked, past the budget of $budget s: $(sed "s|^$root/||" "$out/left" | tr '\n' ' ')" >&2
fi

cat "$out"/*.txt | grep -E '^/.+:[0-9]+:[0-9]+: (warning|error): .*\[[^]]+\]$' |
  sed -e "s|^$root/||" -e 's/,-warnings-as-errors\]$/]/' | sort -u | sort -t: -k1,1 -k2,2n -k3,3n \
  >"$out/findings" || true
if [ ! -s "$out/findings" ]; then
  if [ -s "$out/left" ]; then
    echo "clang-tidy.sh: no findings in the files checked" >&2
  else
    echo "clang-tidy.sh: no findings" >&2
  fi
  exit 0
fi
cat "$out/findings"
echo >&2
echo "clang-tidy.sh: $(wc -l <"$out/findings") findings:" >&2
cut -d: -f1 "$out/findings" | sort | uniq -c | sort -rn >&2
exit 1
