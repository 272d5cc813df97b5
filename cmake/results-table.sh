#!/bin/sh
# Regenerates the results table in README.md and the side-by-side HTML page from real runs of
# every client below that is set up here: cases and transports as rows, clients as columns,
# with the date and versions.
#
#   sh cmake/results-table.sh        (after `sh cmake/bootstrap.sh test` has built everything
#                                     and `npm ci` in drivers/ai-sdk)
#   sh cmake/results-table.sh python-sdk go-sdk
#                                    runs only the clients named (by folder), and takes the
#                                    others' reports from the last run, where there are some
#
# Writes into build/results-table/ (publish the folder as a whole: its links are relative):
#   index.html     the side-by-side page; each cell links to the client's page for the case
#                  and to its transcript, in the client's folder below
#   table.md       the Markdown table spliced into README.md
#   <folder>/      each client's report folder (results.json, summary.md, html/, cases/)
#   <folder>.log   each client's run output
#
# Clients: one entry each, a function client_<name> registered in `clients`. An entry says
#   - whether the client is available here, and if not why: `available FILE "how to get it"
#     || return 0` skips the column with that note (`require FILE "how"` stops the script
#     instead: the README's table must not silently lose a column);
#   - how to get its version, and how to run it, with its name and baseline:
#     `column FOLDER "NAME" "VERSION" BASELINE|- -- DRIVER ARGV...`.
# Adding an SDK is adding its entry, as client_rust_sdk below is (client_kotlin_sdk for a
# driver built by Maven).
# (docs/reports.md, "The results table").
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MCP_PING_BUILD_DIR:-$root/build}
runner="$build/bin/mcp-ping-conformance"
out="$build/results-table"
[ -x "$runner" ] || { echo "results-table: $runner is missing; run sh cmake/bootstrap.sh test first" >&2; exit 2; }
suite_version=$("$runner" --version | awk '{print $2}')
only=" $* "         # the folders to run again; "  " runs every client
mkdir -p "$out"
: >"$out/columns"  # LABEL=FOLDER of each client that ran, one a line
runtimes=""        # "Node.js v20.19.2; Python 3.11.2", for the table's heading
skipped=""         # clients not set up here, and why

# --- The helpers entries use ---

available() { # <file> <how to get it>: is the file there? If not, notes why the column is missing.
  [ -e "$1" ] && return 0
  echo "results-table: no $entry column: $1 is missing; $2" >&2
  skipped="$skipped${skipped:+; }$entry ($2)"
  return 1
}
require() { # <file> <how to get it>: as available, but the script stops without it.
  [ -e "$1" ] || { echo "results-table: $1 is missing; $2" >&2; exit 2; }
}
runtime() { # <text>: a language runtime the runs used, named once in the heading.
  case "; $runtimes; " in *"; $1; "*) ;; *) runtimes="$runtimes${runtimes:+; }$1" ;; esac
}
# Runs the client (or, when others were named, keeps its last report); its folder becomes a
# column labelled "NAME VERSION". A run that finds
# failures exits 1: the table shows them. Exit 2 (usage) or 3 (an ERROR) stops here.
column() { # <folder> <name> <version> <baseline file or -> -- <driver argv...>
  folder=$1 label="$2 $3" baseline=$4
  shift 5
  case "$only" in
    "  " | *" $folder "*) ;;
    *)
      if [ -f "$out/$folder/results.json" ]; then
        echo "$label=$out/$folder" >>"$out/columns"
        return 0
      fi
      ;;
  esac
  if [ "$baseline" = - ]; then set -- -- "$@"; else set -- --baseline "$baseline" -- "$@"; fi
  status=0
  "$runner" run --report-dir "$out/$folder" "$@" >"$out/$folder.log" 2>&1 || status=$?
  [ "$status" -le 1 ] || { echo "results-table: the $folder run failed (exit $status), see $out/$folder.log" >&2; exit 2; }
  echo "$label=$out/$folder" >>"$out/columns"
}

# A driver built by Maven (cmake/bootstrap.sh): drivers/<folder>/target/<folder>-driver.jar,
# started by its run-driver, its version the POM's property named.
maven_column() { # <folder> <name> <version property in its pom.xml>
  available "$root/drivers/$1/target/$1-driver.jar" \
    "sh cmake/bootstrap.sh test builds it when mvn and java are on PATH" || return 0
  runtime "Java $(java -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p')"
  column "$1" "$2" "$(sed -n "s|.*<$3>\(.*\)</$3>.*|\1|p" "$root/drivers/$1/pom.xml")" \
    "$root/drivers/$1/baseline.yaml" -- "$root/drivers/$1/run-driver"
}

# --- The clients, in column order ---

clients="client_reference"
client_reference() { # The suite's own reference client (docs/reference-client.md)
  require "$build/bin/mcp-reference-driver" "run sh cmake/bootstrap.sh test first"
  column reference "reference client" "$suite_version" - \
    -- "$build/bin/mcp-reference-driver" --keepalive-ms 1000
}

clients="$clients client_typescript"
client_typescript() { # The TypeScript SDK (docs/clients/typescript.md)
  package=$root/drivers/typescript/node_modules/@modelcontextprotocol/sdk/package.json
  require "$package" "run sh cmake/bootstrap.sh test (or npm ci in drivers/typescript) first"
  runtime "Node.js $(node --version)"
  column typescript "TypeScript SDK" "$(node -p "require('$package').version")" \
    "$root/drivers/typescript/baseline.yaml" -- node "$root/drivers/typescript/driver.mjs"
}

clients="$clients client_ai_sdk"
client_ai_sdk() { # The Vercel AI SDK's MCP client (docs/clients/ai-sdk.md)
  package=$root/drivers/ai-sdk/node_modules/@ai-sdk/mcp/package.json
  require "$package" "run (cd drivers/ai-sdk && npm ci) first"
  runtime "Node.js $(node --version)"
  column ai-sdk "@ai-sdk/mcp" "$(node -p "require('$package').version")" \
    "$root/drivers/ai-sdk/baseline.yaml" -- "$root/drivers/ai-sdk/run-driver"
}

clients="$clients client_python_sdk"
client_python_sdk() { # The Python SDK (docs/clients/python-sdk.md), when bootstrap made its venv
  python=$root/drivers/python-sdk/.venv/bin/python
  available "$python" "sh cmake/bootstrap.sh test makes drivers/python-sdk/.venv" || return 0
  runtime "$("$python" --version)"
  column python-sdk "Python SDK (mcp)" \
    "$("$python" -c 'import importlib.metadata as m; print(m.version("mcp"))')" \
    "$root/drivers/python-sdk/baseline.yaml" -- "$root/drivers/python-sdk/run-driver"
}

clients="$clients client_go_sdk"
client_go_sdk() { # The Go SDK (docs/clients/go-sdk.md), when bootstrap built its driver
  driver=$root/drivers/go-sdk/go-sdk-driver
  available "$driver" "sh cmake/bootstrap.sh test builds it when go is on PATH" || return 0
  column go-sdk "Go SDK" "$(awk '$1 == "github.com/modelcontextprotocol/go-sdk" {print $2}' \
    "$root/drivers/go-sdk/go.sum" | sed -n 's|/go.mod$||;1p')" \
    "$root/drivers/go-sdk/baseline.yaml" -- "$driver"
}

clients="$clients client_typescript_v2"
client_typescript_v2() { # The TypeScript SDK's v2 client (docs/clients/typescript-v2.md)
  package=$root/drivers/typescript-v2/node_modules/@modelcontextprotocol/client/package.json
  available "$package" "sh cmake/bootstrap.sh test runs npm ci in drivers/typescript-v2" || return 0
  runtime "Node.js $(node --version)"
  column typescript-v2 "TypeScript SDK v2 (@modelcontextprotocol/client)" \
    "$(node -p "require('$package').version")" \
    "$root/drivers/typescript-v2/baseline.yaml" -- node "$root/drivers/typescript-v2/driver.mjs"
}

clients="$clients client_java_sdk"
client_java_sdk() { # The Java SDK (docs/clients/java-sdk.md), when bootstrap built its jar
  maven_column java-sdk "Java SDK (io.modelcontextprotocol.sdk:mcp)" mcp.version
}

clients="$clients client_rust_sdk"
client_rust_sdk() { # The Rust SDK (docs/clients/rust-sdk.md), when bootstrap built its driver
  driver=$root/drivers/rust-sdk/target/release/rust-sdk-driver
  available "$driver" "sh cmake/bootstrap.sh test builds it when cargo is on PATH" || return 0
  column rust-sdk "Rust SDK (rmcp)" \
    "$(awk '$0 == "name = \"rmcp\"" {getline; gsub(/[^0-9.]/, ""); print}' \
      "$root/drivers/rust-sdk/Cargo.lock")" \
    "$root/drivers/rust-sdk/baseline.yaml" -- "$driver"
}

clients="$clients client_kotlin_sdk"
client_kotlin_sdk() { # The Kotlin SDK (docs/clients/kotlin-sdk.md), when bootstrap built its jar
  maven_column kotlin-sdk "Kotlin SDK (io.modelcontextprotocol:kotlin-sdk-client)" mcp.kotlin.version
}

# --- Run them, then write the table and the page ---

for entry in $clients; do "$entry"; done
for name in $only; do
  grep -q "=$out/$name\$" "$out/columns" ||
    { echo "results-table: no client ran into the folder $name (a typo, or not set up here)" >&2; exit 2; }
done
set --
while IFS= read -r line; do set -- "$@" --column "$line"; done <"$out/columns"
table="$out/table.md"
{
  echo "Generated $(date -u +%Y-%m-%d) by \`sh cmake/results-table.sh\` with mcp-ping-conformance"
  echo "$suite_version, revision 2025-11-25, lenient${runtimes:+; $runtimes}. \"(baseline)\" marks"
  echo "a failure listed in the client's baseline (\`drivers/<client>/baseline.yaml\`), with its"
  echo "evidence in \`docs/clients/<client>.md\`."
  echo
  "$runner" table --html "$out/index.html" "$@"
} >"$table"

# Replace what stands between the markers in README.md.
awk -v table="$table" '
  /<!-- results-table:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- results-table:end -->/ { skip = 0 }
  !skip { print }
' "$root/README.md" >"$out/README.md"
grep -q "results-table:begin" "$out/README.md" || { echo "results-table: README.md has no markers" >&2; exit 2; }
mv "$out/README.md" "$root/README.md"
echo "results-table: README.md updated ($(grep -c '^| `' "$table") rows), side by side in $out/index.html"
[ -z "$skipped" ] || echo "results-table: not run here: $skipped" >&2
