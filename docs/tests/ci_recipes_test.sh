#!/bin/sh
# Plays the CI recipes of docs/ci.md on this machine, so that their shell steps cannot drift
# from what the suite accepts (docs/ci.md, "How the recipes are tested"). ci-recipe turns
# each job into scripts; this test runs them in order in a scratch folder as the CI would,
# with a small CMake project as the client (its driver runs this build's reference driver
# or, for a known failure, its broken client), and checks the runs' exit statuses, the
# published files and the job summary.
#
#   ci_recipes_test.sh <ci-recipe> <docs/ci.md> <build dir>
#
# Not exercised (stubbed by name below): installing packages and fetching the suite (they
# need the network) and building the suite (minutes; the recipes' install step installs
# this build instead). The actions are stand-ins: actions/checkout writes the client
# project, upload-artifact and download-artifact copy folders through a scratch store, the
# JUnit action checks its file, GitLab's artifacts are checked to exist.
set -eu

if [ $# -ne 3 ]; then
  echo "usage: $0 <ci-recipe> <docs/ci.md> <build dir>" >&2
  exit 2
fi
tool=$1
doc=$2
build=$(cd "$3" && pwd)
for program in mcp-ping-conformance mcp-reference-driver mcp-broken-client; do
  [ -x "$build/bin/$program" ] || {
    echo "FAIL: $build/bin/$program is not built" >&2
    exit 1
  }
done
command -v bash >/dev/null 2>&1 || {
  echo "FAIL: the recipes' steps need bash" >&2
  exit 1
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/ci-recipes.XXXXXX")
keep=1
cleanup() {
  if [ "$keep" -eq 0 ]; then
    rm -rf "$scratch"
  else
    echo "scratch folder kept: $scratch" >&2
  fi
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The cases every run is restricted to: one the broken client passes, one it fails.
run_options="--transport stdio --scenario ping/id/string --scenario ping/id/integer"
ctest_scenarios="ping/id/string ping/id/integer"
no_failures='expected_failures: []'
integer_id_fails='expected_failures:
  - case: ping/id/integer
    reason: pongs with the id turned into a string ("7" for 7)'
reference_driver="'$build/bin/mcp-reference-driver'"
broken_driver="'$build/bin/mcp-broken-client' --fault id-to-string"

# The steps no test may run here, by the name each recipe gives them.
github_stubs="Install the suite's build dependencies|Get the suite|Build the suite"
gitlab_stubs="apt-get update|DEBIAN_FRONTEND=|: \"\${MCP_PING_REPO:?|cmake -S \"\$MCP_PING_SRC\"|cmake --build \"\$MCP_PING_BUILD\""
echo "not exercised: $github_stubs (GitHub steps); items starting with $gitlab_stubs (GitLab)" |
  tr '|' ','


# actions/checkout: the client's repository. $1 workspace, $2 driver command (words, quoted
# as for sh), $3 the baseline.
write_client() {
  mkdir -p "$1/conformance"
  printf '%s\n' "$3" >"$1/conformance/baseline.yaml"
  printf '#!/bin/sh\nexec %s "$@"\n' "$2" >"$1/driver.in"
  chmod +x "$1/driver.in"
  cat >"$1/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(MyMcpClient LANGUAGES NONE)
enable_testing()
add_custom_target(my-mcp-driver ALL
  COMMAND "\${CMAKE_COMMAND}" -E copy "\${CMAKE_CURRENT_SOURCE_DIR}/driver.in"
    "\${CMAKE_BINARY_DIR}/my-mcp-driver")
find_package(McpPingConformance 0.1 QUIET)
if(McpPingConformance_FOUND)
  mcp_ping_conformance_add_tests(NAME my-client DRIVER "\${CMAKE_BINARY_DIR}/my-mcp-driver"
    BASELINE "\${CMAKE_CURRENT_SOURCE_DIR}/conformance/baseline.yaml" TIMEOUT_MULTIPLIER 2
    TRANSPORTS stdio SCENARIOS $ctest_scenarios)
endif()
EOF
}

# The value of KEY in a step's inputs (the first line with it).
input() { # <with file> <key>
  sed -n "s/^$2	//p" "$1" | head -n 1
}

# The action stand-ins; $workspace, $client_driver and $client_baseline come from play.
run_action() { # <action> <with file>
  case "$1" in
    actions/checkout@v4)
      write_client "$workspace" "$client_driver" "$client_baseline"
      ;;
    actions/upload-artifact@v4)
      artifact=$(input "$2" name)
      [ -n "$artifact" ] || fail "upload-artifact without a name"
      count=$(sed -n 's/^path	//p' "$2" | wc -l)
      sed -n 's/^path	//p' "$2" | while IFS= read -r path; do
        if [ ! -e "$workspace/$path" ]; then
          echo "   upload-artifact $artifact: warning: no files at $path"
        elif [ "$count" -eq 1 ] && [ -d "$workspace/$path" ]; then
          mkdir -p "$scratch/artifacts/$artifact"
          cp -R "$workspace/$path/." "$scratch/artifacts/$artifact/" # one folder: its contents
        else
          mkdir -p "$scratch/artifacts/$artifact/$(dirname "$path")"
          cp -R "$workspace/$path" "$scratch/artifacts/$artifact/$(dirname "$path")/"
        fi
      done
      ;;
    actions/download-artifact@v4)
      pattern=$(input "$2" pattern)
      into=$workspace/$(input "$2" path)
      for artifact in "$scratch"/artifacts/*; do
        case "$(basename "$artifact")" in
          $pattern)
            mkdir -p "$into/$(basename "$artifact")"
            cp -R "$artifact/." "$into/$(basename "$artifact")/"
            ;;
        esac
      done
      ;;
    mikepenz/action-junit-report@v6)
      report=$workspace/$(input "$2" report_paths)
      grep -q '<testsuite' "$report" 2>/dev/null || fail "the JUnit action finds no report at $report"
      echo "$report" >>"$scratch/published"
      ;;
    gitlab:artifacts)
      [ "$(input "$2" when)" = always ] || fail "GitLab artifacts are not kept when the job fails"
      while IFS= read -r path; do
        [ -e "$workspace/$path" ] || fail "GitLab artifact path $path does not exist"
      done <<EOF
$(sed -n 's/^\(path\|junit\)	//p' "$2")
EOF
      input "$2" junit >>"$scratch/published"
      ;;
    *) fail "no stand-in for the action $1: add one to $0" ;;
  esac
}

# Plays one job of a recipe in a fresh workspace; prints each step's outcome. Sets
# $job_failed (0 or 1) and writes each run step's exit status to $steps/<n>.status.
# play <label> <recipe> <job> [ci-recipe options...]
play() {
  label=$1
  recipe=$2
  job=$3
  shift 3
  steps=$scratch/steps/$label
  workspace=$scratch/workspace
  rm -rf "$workspace" "$scratch/published"
  mkdir -p "$workspace" "$scratch/temp"
  : >"$scratch/summary-$label.md"
  case "$recipe" in
    gitlab) stubs=$gitlab_stubs ;;
    *) stubs=$github_stubs ;;
  esac
  # The suite built here, and a scratch prefix shared by the jobs (each job's fresh /opt
  # would hold the same files). The repository variable only reaches stubbed steps.
  set -- "$@" --set "MCP_PING_BUILD=$build" --set "MCP_PING_PREFIX=$scratch/prefix" \
    --set "MCP_PING_SRC=$scratch/suite-src" --context "vars.MCP_PING_REPO=$scratch/no-network"
  old_ifs=$IFS
  IFS='|'
  for stub in $stubs; do set -- "$@" --stub "$stub"; done
  IFS=$old_ifs
  "$tool" "$doc" "$recipe" "$job" "$steps" "$@" || fail "$recipe: ci-recipe refused the recipe (above)"
  echo "== $label: $recipe, job $job"
  if [ "$recipe" = gitlab ]; then
    write_client "$workspace" "$client_driver" "$client_baseline" # GitLab clones before a job
    echo "   stand-in: the GitLab runner's clone of the repository"
  fi
  job_failed=0
  while read -r n kind when name; do
    if [ "$job_failed" -eq 1 ] && [ "$when" != always ]; then
      echo "   skipped (an earlier step failed): $name"
      continue
    fi
    case "$kind" in
      stub) echo "   not exercised: $name" ;;
      uses)
        run_action "$name" "$steps/$n.with"
        echo "   stand-in: $name"
        ;;
      run)
        status=0
        (cd "$workspace" && env CI=true GITHUB_ACTIONS=true GITLAB_CI=true \
          GITHUB_WORKSPACE="$workspace" CI_PROJECT_DIR="$workspace" \
          RUNNER_TEMP="$scratch/temp" GITHUB_STEP_SUMMARY="$scratch/summary-$label.md" \
          bash --noprofile --norc -eo pipefail "$steps/$n.sh") \
          </dev/null >"$steps/$n.log" 2>&1 || status=$?
        echo "$status" >"$steps/$n.status"
        echo "   exit $status: $name (log: $steps/$n.log)"
        if [ "$status" -ne 0 ]; then
          job_failed=1
          sed 's/^/     | /' "$steps/$n.log" | tail -n 15
        fi
        ;;
      *) fail "$steps/plan: unknown kind $kind" ;;
    esac
  done <"$steps/plan"
}

# The exit status of the step named $2 in the last play of label $1.
step_status() { # <label> <step name>
  n=$(awk -v name="$2" '{ n = $1; $1 = $2 = $3 = ""; sub(/^ +/, ""); if ($0 == name) print n }' \
    "$scratch/steps/$1/plan")
  [ -n "$n" ] || fail "$1: no step named '$2'"
  [ -f "$scratch/steps/$1/$n.status" ] || fail "$1: the step '$2' did not run"
  cat "$scratch/steps/$1/$n.status"
}

expect_status() { # <label> <step name> <status> <why>
  actual=$(step_status "$1" "$2")
  [ "$actual" = "$3" ] || fail "$1: '$2' exited $actual, expected $3 ($4)"
}

expect_reports() { # <label> <report dir, relative to the workspace>
  for file in junit.xml summary.md html/index.html; do
    [ -s "$workspace/$2/$file" ] || fail "$1: no $2/$file"
  done
}

# The job summary holds the run's summary.md, verbatim.
expect_summary() { # <label> <summary.md, relative to the workspace>
  cmp -s "$scratch/summary-$1.md" "$workspace/$2" ||
    fail "$1: the job summary is not $2: $(head -c 300 "$scratch/summary-$1.md")"
  grep -q '^|' "$scratch/summary-$1.md" || fail "$1: the job summary has no Markdown table"
}

expect_published() { # <label> <file, relative to the workspace>
  grep -Fqx -e "$workspace/$2" -e "$2" "$scratch/published" 2>/dev/null ||
    fail "$1: $2 was not published"
}

run_step="Run the conformance suite"

# 1. GitHub, a client that passes: exit 0, everything published.
client_driver=$reference_driver client_baseline=$no_failures
play github-pass github conformance --append "MCP_PING_RUN_OPTIONS=$run_options"
[ "$job_failed" -eq 0 ] || fail "github-pass: the job failed"
expect_status github-pass "$run_step" 0 "every case passes"
expect_reports github-pass mcp-ping-report
expect_summary github-pass mcp-ping-report/summary.md
expect_published github-pass mcp-ping-report/junit.xml
for file in junit.xml summary.md html/index.html cases/stdio/ping/id/string/transcript.txt; do
  [ -s "$scratch/artifacts/mcp-ping-report/$file" ] || fail "github-pass: the artifact lacks $file"
done
grep -q '"format": "mcp-ping-conformance-results/1"' "$workspace/mcp-ping-report/results.json" ||
  fail "github-pass: no results.json"

# 2. GitHub, a known failure in the baseline: still exit 0, reported as expected.
rm -rf "$scratch/artifacts"
client_driver=$broken_driver client_baseline=$integer_id_fails
play github-baselined github conformance --append "MCP_PING_RUN_OPTIONS=$run_options"
[ "$job_failed" -eq 0 ] || fail "github-baselined: the job failed"
expect_status github-baselined "$run_step" 0 "the only failure is in the baseline"
expect_reports github-baselined mcp-ping-report
expect_summary github-baselined mcp-ping-report/summary.md
grep -q 'type="xfail"' "$workspace/mcp-ping-report/junit.xml" ||
  fail "github-baselined: the expected failure is not an xfail in junit.xml"
grep -q 'ping/id/integer' "$scratch/summary-github-baselined.md" ||
  fail "github-baselined: the job summary does not name the expected failure"

# 3. GitHub, the same baseline for a client that passes: a stale entry, exit 1, and the
#    reports are still published.
rm -rf "$scratch/artifacts"
client_driver=$reference_driver client_baseline=$integer_id_fails
play github-stale github conformance --append "MCP_PING_RUN_OPTIONS=$run_options"
[ "$job_failed" -eq 1 ] || fail "github-stale: the job passed with a stale baseline entry"
expect_status github-stale "$run_step" 1 "a stale baseline entry"
expect_status github-stale "Job summary" 0 "it runs after the failed run"
expect_reports github-stale mcp-ping-report
expect_summary github-stale mcp-ping-report/summary.md
expect_published github-stale mcp-ping-report/junit.xml
grep -q 'type="STALE"' "$workspace/mcp-ping-report/junit.xml" ||
  fail "github-stale: no STALE failure in junit.xml"
[ -s "$scratch/artifacts/mcp-ping-report/html/index.html" ] ||
  fail "github-stale: the failed run's reports were not uploaded"

# 4. GitLab, the known failure: exit 0 (the run line is the job's last command), artifacts.
client_driver=$broken_driver client_baseline=$integer_id_fails
play gitlab-baselined gitlab mcp-ping-conformance --append "MCP_PING_RUN_OPTIONS=$run_options"
[ "$job_failed" -eq 0 ] || fail "gitlab-baselined: the job failed"
expect_reports gitlab-baselined mcp-ping-report
expect_published gitlab-baselined mcp-ping-report/junit.xml
grep -q 'type="xfail"' "$workspace/mcp-ping-report/junit.xml" ||
  fail "gitlab-baselined: the expected failure is not an xfail in junit.xml"
# The same with a stale entry: the job fails, the artifacts are there all the same.
client_driver=$reference_driver client_baseline=$integer_id_fails
play gitlab-stale gitlab mcp-ping-conformance --append "MCP_PING_RUN_OPTIONS=$run_options"
[ "$job_failed" -eq 1 ] || fail "gitlab-stale: the job passed with a stale baseline entry"
expect_status gitlab-stale script 1 "a stale baseline entry"
expect_reports gitlab-stale mcp-ping-report

# 5. The ctest route, the known failure: ctest passes (an expected failure is a passing
#    test), the cases' folders merge into one summary and HTML report.
rm -rf "$scratch/artifacts"
client_driver=$broken_driver client_baseline=$integer_id_fails
play github-ctest github-ctest conformance
[ "$job_failed" -eq 0 ] || fail "github-ctest: the job failed"
expect_status github-ctest "Run the conformance tests" 0 "the only failure is in the baseline"
expect_reports github-ctest mcp-ping-ctest
expect_summary github-ctest mcp-ping-ctest/summary.md
expect_published github-ctest mcp-ping-ctest/junit.xml
grep -q 'my-client/stdio/ping/id/integer' "$workspace/mcp-ping-ctest/junit.xml" ||
  fail "github-ctest: the ctest JUnit lacks my-client/stdio/ping/id/integer"
grep -q 'ping/id/integer' "$workspace/mcp-ping-ctest/summary.md" ||
  fail "github-ctest: the merged summary lacks the expected failure"
[ -d "$scratch/artifacts/mcp-ping-report/build/mcp-ping-conformance/my-client" ] ||
  fail "github-ctest: the cases' evidence was not uploaded"

# 6. Sharded: three shards of two cases (the third has none), then the merge job.
rm -rf "$scratch/artifacts"
client_driver=$reference_driver client_baseline=$no_failures
for shard in 1 2 3; do
  play "github-shard-$shard" github-sharded shard --context "matrix.shard=$shard" \
    --context strategy.job-total=3 --append "MCP_PING_RUN_OPTIONS=$run_options"
  [ "$job_failed" -eq 0 ] || fail "github-shard-$shard: the job failed"
  expect_status "github-shard-$shard" "Run one shard" 0 "every case passes"
done
[ -s "$scratch/artifacts/mcp-ping-shard-1/junit.xml" ] && [ -s "$scratch/artifacts/mcp-ping-shard-2/junit.xml" ] ||
  fail "github-sharded: shards 1 and 2 uploaded no report"
play github-merge github-sharded merge
[ "$job_failed" -eq 0 ] || fail "github-merge: the job failed"
expect_status github-merge "Merge the shards" 0 "every case passes"
expect_reports github-merge mcp-ping-merged
expect_summary github-merge mcp-ping-merged/summary.md
expect_published github-merge mcp-ping-merged/junit.xml
[ "$(grep -c '<testcase ' "$workspace/mcp-ping-merged/junit.xml")" -eq 2 ] ||
  fail "github-merge: the merged JUnit does not have the two cases"
case_page=$workspace/mcp-ping-merged/html/cases/0/stdio/ping/id/string.html
grep -q '<pre class="transcript">' "$case_page" && ! grep -q 'No transcript at' "$case_page" ||
  fail "github-merge: the merged case page has no transcript (the shards' evidence paths moved)"

keep=0
echo "PASS: the recipes of $doc run as documented"
