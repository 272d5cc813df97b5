# mcp_ping_conformance_add_tests(): registers one ctest test per conformance case (scenario x
# transport) for a client's driver. See docs/ctest.md.
#
#   mcp_ping_conformance_add_tests(
#     NAME <name>                 # test names are <name>/<transport>/<case id>
#     DRIVER <argv>...            # the driver command as a list (generator expressions allowed)
#     [TRANSPORTS <t>...]         # default: stdio, streamable-http and sse
#     [SCENARIOS <glob>...]       # default: every case
#     [REVISION <revision>]       # default 2025-11-25
#     [STRICT]                    # NON_STRICT verdicts fail the test
#     [TIMEOUT_MULTIPLIER <x>]    # scales every bound (slow machines, sanitizers)
#     [REPORT_DIR <dir>]          # evidence; default <build>/mcp-ping-conformance/<name>
#     [BASELINE <file>]           # known failures (docs/baselines.md)
#     [LABELS <label>...])        # added to every test's labels
#
# Each test runs `mcp-ping-conformance run` for its one case. UNSUPPORTED cases are reported
# as skipped (SKIP_RETURN_CODE). Labels: mcp-ping-conformance, the transport, the highest
# level the case checks (must, should, may, info), and the case's area (ping, client-ping, ...).

set(MCP_PING_CONFORMANCE_HOSTED_TRANSPORTS stdio streamable-http sse)
set(_mcp_ping_module_dir "${CMAKE_CURRENT_LIST_DIR}")

function(mcp_ping_conformance_add_tests)
  cmake_parse_arguments(PARSE_ARGV 0 arg "STRICT"
    "NAME;REVISION;TIMEOUT_MULTIPLIER;REPORT_DIR;BASELINE" "DRIVER;TRANSPORTS;SCENARIOS;LABELS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME OR NOT arg_DRIVER)
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: NAME and DRIVER are required")
  endif()
  if(NOT arg_TRANSPORTS)
    set(arg_TRANSPORTS ${MCP_PING_CONFORMANCE_HOSTED_TRANSPORTS})
  endif()
  if(NOT arg_REVISION)
    set(arg_REVISION 2025-11-25)
  endif()
  if(NOT arg_TIMEOUT_MULTIPLIER)
    set(arg_TIMEOUT_MULTIPLIER 1)
  endif()
  if(NOT arg_REPORT_DIR)
    set(arg_REPORT_DIR "${CMAKE_BINARY_DIR}/mcp-ping-conformance/${arg_NAME}")
  endif()

  # The runner and fixtures: this build's own, or those of an installed package.
  if(TARGET mcp-ping-conformance)
    set(runner "$<TARGET_FILE:mcp-ping-conformance>")
  elseif(TARGET McpPingConformance::mcp-ping-conformance)
    set(runner "$<TARGET_FILE:McpPingConformance::mcp-ping-conformance>")
  else()
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: no mcp-ping-conformance target")
  endif()
  if(DEFINED MCP_PING_CONFORMANCE_FIXTURES_DIR)
    set(fixtures "${MCP_PING_CONFORMANCE_FIXTURES_DIR}")
  else()
    set(fixtures "${_mcp_ping_module_dir}/../fixtures")
  endif()
  cmake_path(ABSOLUTE_PATH fixtures NORMALIZE)
  file(GLOB_RECURSE scenario_files CONFIGURE_DEPENDS "${fixtures}/scenarios/*.json")
  list(SORT scenario_files)
  if(NOT scenario_files)
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: no scenarios under ${fixtures}/scenarios")
  endif()

  math(EXPR timeout "60 * ${arg_TIMEOUT_MULTIPLIER}" OUTPUT_FORMAT DECIMAL)
  set(strict_flag "")
  if(arg_STRICT)
    set(strict_flag --strict)
  endif()
  set(baseline_flag "")
  if(arg_BASELINE)
    cmake_path(ABSOLUTE_PATH arg_BASELINE NORMALIZE)
    set(baseline_flag --baseline "${arg_BASELINE}")
  endif()

  set(count 0)
  foreach(file IN LISTS scenario_files)
    cmake_path(RELATIVE_PATH file BASE_DIRECTORY "${fixtures}/scenarios" OUTPUT_VARIABLE id)
    string(REGEX REPLACE "\\.json$" "" id "${id}")
    if(arg_SCENARIOS)
      set(selected FALSE)
      foreach(glob IN LISTS arg_SCENARIOS)
        # Shell glob to regex: escape the regex specials, then '*' and '?' ('/' included).
        string(REGEX REPLACE "([][.^$+(){}|\\])" "\\\\\\1" regex "${glob}")
        string(REPLACE "*" ".*" regex "${regex}")
        string(REPLACE "?" "." regex "${regex}")
        set(regex "^${regex}$")
        if(id MATCHES "${regex}")
          set(selected TRUE)
        endif()
      endforeach()
      if(NOT selected)
        continue()
      endif()
    endif()
    file(READ "${file}" content)
    string(JSON transports_json ERROR_VARIABLE json_error GET "${content}" transports)
    if(json_error)
      message(FATAL_ERROR "${file}: /transports: ${json_error}")
    endif()
    string(JSON transport_count LENGTH "${transports_json}")
    set(level must)
    if(NOT content MATCHES "\"level\"[ \t]*:[ \t]*\"MUST\"")
      if(content MATCHES "\"level\"[ \t]*:[ \t]*\"SHOULD\"")
        set(level should)
      elseif(content MATCHES "\"level\"[ \t]*:[ \t]*\"MAY\"")
        set(level may)
      else()
        set(level info)
      endif()
    endif()
    string(REGEX REPLACE "/.*" "" area "${id}")
    # Cases whose verdict depends on CPU time run alone (the fixture's "exclusive").
    set(serial FALSE)
    if(content MATCHES "\"exclusive\"[ \t]*:[ \t]*true")
      set(serial TRUE)
    endif()
    math(EXPR last "${transport_count} - 1")
    foreach(index RANGE ${last})
      string(JSON transport GET "${transports_json}" ${index})
      if(NOT transport IN_LIST arg_TRANSPORTS)
        continue()
      endif()
      set(test_name "${arg_NAME}/${transport}/${id}")
      add_test(NAME "${test_name}"
        COMMAND "${runner}" run
          --scenario "${id}" --transport "${transport}" --revision "${arg_REVISION}"
          ${strict_flag} ${baseline_flag} --timeout-multiplier "${arg_TIMEOUT_MULTIPLIER}"
          --fixtures "${fixtures}" --jobs 1 --unsupported-exit-code 77 --ctest-measurements
          --report-dir "${arg_REPORT_DIR}/${transport}/${id}"
          -- ${arg_DRIVER})
      set_tests_properties("${test_name}" PROPERTIES
        LABELS "mcp-ping-conformance;${transport};${level};${area};${arg_LABELS}"
        SKIP_RETURN_CODE 77
        RUN_SERIAL ${serial}
        TIMEOUT ${timeout}
        ATTACHED_FILES_ON_FAIL
          "${arg_REPORT_DIR}/${transport}/${id}/cases/${transport}/${id}/transcript.txt")
      math(EXPR count "${count} + 1")
    endforeach()
  endforeach()
  message(STATUS "mcp-ping-conformance: ${count} conformance tests for '${arg_NAME}'")
endfunction()
