#!/bin/sh
# Regenerates the results table in README.md from real runs: the reference client, the
# TypeScript SDK, the Vercel AI SDK's MCP client and, when bootstrap set them up, the official
# Python and Go SDKs, side by side, per case and transport, with the date and versions.
#
#   sh cmake/results-table.sh        (after `sh cmake/bootstrap.sh test` has built everything
#                                     and `npm ci` in drivers/ai-sdk)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MCP_PING_BUILD_DIR:-$root/build}
runner="$build/bin/mcp-ping-conformance"
out="$build/results-table"
for need in "$runner" "$build/bin/mcp-reference-driver" \
  "$root/drivers/typescript/node_modules/@modelcontextprotocol/sdk/package.json"; do
  [ -e "$need" ] || { echo "results-table: $need is missing; run sh cmake/bootstrap.sh test first" >&2; exit 2; }
done
ai_sdk_package="$root/drivers/ai-sdk/node_modules/@ai-sdk/mcp/package.json"
[ -e "$ai_sdk_package" ] || {
  echo "results-table: $ai_sdk_package is missing; run (cd drivers/ai-sdk && npm ci) first" >&2
  exit 2
}

# A run that finds failures exits 1: the table shows them. Exit 2 (a suite error) stops here.
run() { # <folder> <runner options and driver...>
  dir=$1
  shift
  status=0
  "$runner" run --report-dir "$out/$dir" "$@" >"$out/$dir.log" 2>&1 || status=$?
  [ "$status" -le 1 ] || { echo "results-table: the $dir run failed (exit $status), see $out/$dir.log" >&2; exit 2; }
}
mkdir -p "$out"
run reference -- "$build/bin/mcp-reference-driver" --keepalive-ms 1000
run typescript --baseline "$root/drivers/typescript/baseline.yaml" \
  -- node "$root/drivers/typescript/driver.mjs"
run ai-sdk --baseline "$root/drivers/ai-sdk/baseline.yaml" -- "$root/drivers/ai-sdk/run-driver"
# The Python SDK (docs/clients/python-sdk.md) only when bootstrap made its venv.
python_sdk="$root/drivers/python-sdk/.venv/bin/python"
python_sdk_version=""
if [ -x "$python_sdk" ] && python_sdk_version=$("$python_sdk" -c \
  'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null); then
  run python-sdk --baseline "$root/drivers/python-sdk/baseline.yaml" \
    -- "$root/drivers/python-sdk/run-driver"
else
  echo "results-table: no Python SDK column (no venv with mcp in drivers/python-sdk/.venv)" >&2
fi
# The Go SDK (docs/clients/go-sdk.md) only when bootstrap built its driver.
go_sdk_version=""
if [ -x "$root/drivers/go-sdk/go-sdk-driver" ]; then
  go_sdk_version=$(awk '$1 == "github.com/modelcontextprotocol/go-sdk" {print $2}' "$root/drivers/go-sdk/go.sum" | sed -n 's|/go.mod$||;1p')
  run go-sdk --baseline "$root/drivers/go-sdk/baseline.yaml" -- "$root/drivers/go-sdk/go-sdk-driver"
else
  echo "results-table: no Go SDK column (no drivers/go-sdk/go-sdk-driver)" >&2
fi

suite_version=$("$runner" --version | awk '{print $2}')
sdk_version=$(node -p "require('$root/drivers/typescript/node_modules/@modelcontextprotocol/sdk/package.json').version")
ai_sdk_version=$(node -p "require('$ai_sdk_package').version")
table="$out/table.md"
{
  echo "Generated $(date -u +%Y-%m-%d) by \`sh cmake/results-table.sh\` with mcp-ping-conformance"
  python_note=${python_sdk_version:+; $("$python_sdk" --version)}
  echo "$suite_version, revision 2025-11-25, lenient; Node.js $(node --version)$python_note. \"(baseline)\" marks"
  echo "a failure listed in the client's baseline (\`drivers/<client>/baseline.yaml\`), with its"
  echo "evidence in \`docs/clients/<client>.md\`."
  echo
  set -- --column "reference client $suite_version=$out/reference" \
    --column "TypeScript SDK $sdk_version=$out/typescript" \
    --column "@ai-sdk/mcp $ai_sdk_version=$out/ai-sdk"
  [ -z "$python_sdk_version" ] || set -- "$@" --column "Python SDK (mcp) $python_sdk_version=$out/python-sdk"
  [ -z "$go_sdk_version" ] || set -- "$@" --column "Go SDK $go_sdk_version=$out/go-sdk"
  "$runner" table "$@"
} >"$table"

# Replace what stands between the markers in README.md.
awk -v table="$table" '
  /<!-- results-table:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- results-table:end -->/ { skip = 0 }
  !skip { print }
' "$root/README.md" >"$out/README.md"
grep -q "results-table:begin" "$out/README.md" || { echo "results-table: README.md has no markers" >&2; exit 2; }
mv "$out/README.md" "$root/README.md"
echo "results-table: README.md updated ($(grep -c '^| `' "$table") rows)"
