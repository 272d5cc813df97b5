# The runner's JUnit XML must validate against reports/tests/data/junit.xsd (the shape
# Jenkins and Surefire read), for runs that produce every element the renderer writes:
# passed, failed, expected-failure and stale baseline cases from the broken client,
# unsupported cases from a driver that supports nothing, and an ERROR from a driver that
# breaks the driver contract. The totals on each testsuite must match its testcases (a
# schema cannot check that), and the schema must reject documents that break it.
#
#   cmake -DRUNNER=... -DBROKEN_CLIENT=... -DDRIVERS=<dir of self-test drivers>
#         -DSCHEMA=<junit.xsd> -DWORK_DIR=... -P ValidateJunit.cmake
foreach(variable RUNNER BROKEN_CLIENT DRIVERS SCHEMA WORK_DIR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "ValidateJunit.cmake: -D${variable}=... is required")
  endif()
endforeach()

# Looked up when the test runs, so installing libxml2-utils needs no reconfigure; a missing
# xmllint fails the test, since a validation that cannot run has not passed.
find_program(XMLLINT xmllint NO_CACHE)
if(NOT XMLLINT)
  message(FATAL_ERROR "xmllint not found: install libxml2-utils (cmake/bootstrap.sh installs it)")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(xpath file expression out_var)
  execute_process(COMMAND "${XMLLINT}" --xpath "${expression}" "${file}"
    OUTPUT_VARIABLE value ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

function(expect_valid file)
  execute_process(COMMAND "${XMLLINT}" --noout --schema "${SCHEMA}" "${file}"
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${file} does not validate against ${SCHEMA}:\n${out}${err}")
  endif()
  # Every total equals the number of its elements, on each testsuite and on testsuites.
  string(CONCAT mismatches
    "count(/testsuites/testsuite[@tests != count(testcase) or @failures != count(testcase/failure)"
    " or @errors != count(testcase/error) or @skipped != count(testcase/skipped)])"
    " + count(/testsuites[@tests != count(//testcase) or @failures != count(//failure)"
    " or @errors != count(//error) or @skipped != count(//skipped)])")
  xpath("${file}" "${mismatches}" wrong_totals)
  if(NOT wrong_totals STREQUAL "0")
    message(FATAL_ERROR "${file}: totals that do not match the testcases (${wrong_totals}):\n"
                        "${mismatches}")
  endif()
  message(STATUS "valid: ${file}")
endfunction()

function(expect_invalid file reason)
  execute_process(COMMAND "${XMLLINT}" --noout --schema "${SCHEMA}" "${file}"
    RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE err)
  if(status EQUAL 0)
    message(FATAL_ERROR "the schema accepts ${file}")
  endif()
  if(NOT err MATCHES "${reason}")
    message(FATAL_ERROR "${file} is rejected, but not for '${reason}':\n${err}")
  endif()
  message(STATUS "rejected as it should be: ${file}")
endfunction()

# run(<name> <expected exit status> <runner arguments>...): the report in WORK_DIR/<name>.
function(run name expected_status)
  execute_process(COMMAND "${RUNNER}" run --report-dir "${WORK_DIR}/${name}" ${ARGN}
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  if(NOT status STREQUAL expected_status)
    message(FATAL_ERROR "run ${name}: exit status ${status}, expected ${expected_status}:\n"
                        "${out}\n${err}")
  endif()
  if(NOT EXISTS "${WORK_DIR}/${name}/junit.xml")
    message(FATAL_ERROR "run ${name}: no junit.xml:\n${out}\n${err}")
  endif()
endfunction()

# expect_count(<file> <xpath> <minimum>): the run exercised the element the xpath counts.
function(expect_count file expression minimum)
  xpath("${file}" "count(${expression})" count)
  if(NOT count MATCHES "^[0-9]+$" OR count LESS minimum)
    message(FATAL_ERROR "${file}: ${count} of ${expression}, expected at least ${minimum}")
  endif()
endfunction()

# The broken client never answers pings: ping/id/* fail on stdio and Streamable HTTP, the
# baseline turns ping/id/string into expected failures and makes its passing
# client-ping/answered entry stale; client-ping/answered passes on the two HTTP transports.
# (UNSUPPORTED: the `unsupported` run below.)
file(WRITE "${WORK_DIR}/baseline.yaml" [[
expected_failures:
  - case: ping/id/string
    reason: never answers pings
  - case: client-ping/answered
    transport: stdio
    reason: passes, so this entry is stale
]])
run(broken 1 --scenario ping/id/string --scenario ping/id/integer
  --scenario client-ping/answered --baseline "${WORK_DIR}/baseline.yaml"
  -- "${BROKEN_CLIENT}" --fault no-pong)
run(unsupported 0 --scenario "ping/id/*" --transport stdio -- "${DRIVERS}/unsupported.sh")
run(error 3 --scenario ping/id/string --transport stdio -- "${DRIVERS}/prints-garbage.sh")

set(broken "${WORK_DIR}/broken/junit.xml")
foreach(file IN ITEMS "${broken}" "${WORK_DIR}/unsupported/junit.xml"
                      "${WORK_DIR}/error/junit.xml")
  expect_valid("${file}")
endforeach()
expect_count("${broken}" "/testsuites/testsuite" 3)
expect_count("${broken}" "//testsuite/properties/property[@name='baseline']" 3)
expect_count("${broken}" "//testcase[not(*)]" 2)
expect_count("${broken}" "//failure[@type='FAIL' and string-length(.) > 0]" 2)
expect_count("${broken}" "//failure[@type='STALE']" 1)
expect_count("${broken}" "//skipped[@type='xfail']" 2)
expect_count("${broken}" "//testcase[skipped[@type='xfail']]/system-out" 2)
expect_count("${WORK_DIR}/unsupported/junit.xml" "//skipped[starts-with(@message, 'UNSUPPORTED')]" 7)
expect_count("${WORK_DIR}/error/junit.xml" "//error[@type='ERROR']" 1)

# The schema is not a formality: documents that break it one way each must fail, each for
# its own reason (xmllint's message).
file(READ "${broken}" document)
function(mutant name reason from to)
  string(FIND "${document}" "${from}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${broken} has no '${from}' to change")
  endif()
  string(REPLACE "${from}" "${to}" changed "${document}")
  file(WRITE "${WORK_DIR}/${name}.xml" "${changed}")
  expect_invalid("${WORK_DIR}/${name}.xml" "${reason}")
endfunction()
mutant(no-classname "'classname' is required"
  [[<testcase classname="mcp.stdio" name=]] [[<testcase name=]])
mutant(failure-without-type "'failure': The attribute 'type' is required"
  [[<failure type="STALE" message=]] [[<failure message=]])
mutant(failed-and-skipped "'skipped': This element is not expected"
  [[<skipped type="xfail"]] [[<failure type="FAIL" message=""/><skipped type="xfail"]])
string(REGEX MATCH "time=\"[0-9.]+\"" time "${document}")
mutant(time-not-seconds "'soon' is not a valid value" "${time}" [[time="soon"]])
string(REGEX MATCH "<testcase [^>]*/>" passed "${document}")
mutant(case-twice "Duplicate key-sequence" "${passed}" "${passed}${passed}")
