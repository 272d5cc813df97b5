# mcp_ping_conformance_add_tests(): registers one ctest test per conformance case (scenario x
# transport) for a client's driver. See docs/ctest.md.
#
#   mcp_ping_conformance_add_tests(
#     NAME <name>                 # test names are <name>/<transport>/<case id>
#     DRIVER <argv>...            # the driver command as a list (generator expressions allowed)
#     [TRANSPORTS <t>...]         # default: every transport the runner knows
#     [SCENARIOS <glob>...]       # default: every case
#     [REVISION <revision>]       # default 2025-11-25
#     [STRICT]                    # NON_STRICT verdicts fail the test
#     [TIMEOUT_MULTIPLIER <x>]    # scales every bound (slow machines, sanitizers)
#     [REPORT_DIR <dir>]          # evidence; default <build>/mcp-ping-conformance/<name>
#     [BASELINE <file>]           # known failures (docs/baselines.md)
#     [SCHEMAS <dir>]             # the specification's schema/ folder: every client message is
#                                 # validated (wire:schema-valid); default MCP_PING_SCHEMAS_DIR
#     [LABELS <label>...])        # added to every test's labels
#
# Each test runs `mcp-ping-conformance run` for its one case. UNSUPPORTED cases are reported
# as skipped (SKIP_RETURN_CODE). Labels: mcp-ping-conformance, the transport, the highest
# level the case checks (must, should, may, info), and the case's area (ping, client-ping, ...).
#
# Which cases exist, on which transports, at which level and whether they run alone comes from
# the runner itself (`mcp-ping-conformance list --json`), never from reading the fixtures here:
#
# - Installed runner (find_package, or any IMPORTED mcp-ping-conformance target): it exists at
#   configure time, so the function runs `list --json` there and calls add_test() directly.
#   The runner and the fixtures are configure dependencies: a new suite or an edited fixture
#   reconfigures.
# - Runner built in the same tree (this project, or the suite added with add_subdirectory):
#   it does not exist yet at configure time. A build step (target
#   mcp-ping-conformance-tests-<name>, part of `all`) runs `list --json` once the runner is
#   built and writes the add_test() calls to a file that ctest includes through the directory
#   property TEST_INCLUDE_FILES, as gtest_discover_tests() does. Until that step has run, ctest
#   shows one failing test, <name>/NOT_BUILT.
#
# Both ways make the same tests from the same document; the code below that turns the
# document into tests is shared. This file also runs as a script (cmake -P) for the build step.

# The functions below keep the policies of CMake 3.25 whoever includes them, and in script mode.
cmake_policy(PUSH)
cmake_policy(VERSION 3.25)

# The default SCHEMAS of every mcp_ping_conformance_add_tests() call: a checkout of
# github.com/modelcontextprotocol/modelcontextprotocol's schema/ folder; empty: schema
# validation off.
if(NOT CMAKE_SCRIPT_MODE_FILE)
  set(MCP_PING_SCHEMAS_DIR "" CACHE PATH
    "The MCP specification's schema/ folder (<dir>/<revision>/schema.json) the conformance tests validate client messages against; empty: off")
endif()

set(_mcp_ping_module_dir "${CMAKE_CURRENT_LIST_DIR}")
set(_mcp_ping_module_file "${CMAKE_CURRENT_LIST_FILE}")

# `value` as a CMake bracket argument, whatever it holds.
function(_mcp_ping_bracket value out)
  set(equals "=")
  while(value MATCHES "]${equals}]")
    string(APPEND equals "=")
  endwhile()
  set(${out} "[${equals}[${value}]${equals}]" PARENT_SCOPE)
endfunction()

# The indices of the JSON array `array`, as a list (empty for an empty array).
function(_mcp_ping_json_indices array out)
  string(JSON length LENGTH "${array}")
  set(indices "")
  if(length GREATER 0)
    math(EXPR last "${length} - 1")
    foreach(index RANGE ${last})
      list(APPEND indices ${index})
    endforeach()
  endif()
  set(${out} "${indices}" PARENT_SCOPE)
endfunction()

# Each element of the list named `list_var`, bracket-quoted and space-separated.
function(_mcp_ping_bracket_list list_var out)
  set(text "")
  foreach(item IN LISTS ${list_var})
    _mcp_ping_bracket("${item}" quoted)
    string(APPEND text " ${quoted}")
  endforeach()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# `mcp-ping-conformance list --json` for the selection: the catalogue document.
function(_mcp_ping_list_json runner fixtures scenarios out)
  set(command "${runner}" list --json --fixtures "${fixtures}")
  foreach(glob IN LISTS scenarios)
    list(APPEND command --scenario "${glob}")
  endforeach()
  execute_process(COMMAND ${command}
    RESULT_VARIABLE status OUTPUT_VARIABLE json ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    list(JOIN command " " shown)
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: `${shown}` failed (${status}):\n${error}")
  endif()
  set(${out} "${json}" PARENT_SCOPE)
endfunction()

# The tests for the catalogue document `json` as CMake code in `out`, their number in `count`.
# `form` is CONFIGURE (add_test(NAME ... COMMAND ...), for a CMakeLists.txt) or CTEST
# (add_test(<name> <command> ...), for a file ctest includes). The settings are the variables
# mcp_ping_<setting> of the caller.
function(_mcp_ping_tests_code json form out count_out)
  # Shape 1 of the document (docs/ctest.md); a later runner raises it when fields change meaning.
  string(JSON format ERROR_VARIABLE error GET "${json}" format)
  if(error OR NOT format EQUAL 1)
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: the runner's `list --json` is not of "
      "format 1 (${format}${error}); use the McpPingConformance.cmake of the same suite")
  endif()
  string(JSON known_transports GET "${json}" transports)
  _mcp_ping_json_indices("${known_transports}" indices)
  set(known "")
  foreach(index IN LISTS indices)
    string(JSON transport GET "${known_transports}" ${index})
    list(APPEND known "${transport}")
  endforeach()
  # No TRANSPORTS: every transport the runner knows (the list lives in the runner only).
  if(NOT mcp_ping_transports)
    set(mcp_ping_transports ${known})
  endif()
  foreach(transport IN LISTS mcp_ping_transports)
    if(NOT transport IN_LIST known)
      list(JOIN known ", " known)
      message(FATAL_ERROR "mcp_ping_conformance_add_tests: TRANSPORTS ${transport}: the suite "
        "knows ${known}")
    endif()
  endforeach()

  set(strict_flag "")
  if(mcp_ping_strict)
    set(strict_flag --strict)
  endif()
  set(baseline_flag "")
  if(mcp_ping_baseline)
    set(baseline_flag --baseline "${mcp_ping_baseline}")
  endif()
  set(schemas_flag "")
  if(mcp_ping_schemas)
    set(schemas_flag --schemas "${mcp_ping_schemas}")
  endif()
  _mcp_ping_bracket_list(mcp_ping_driver driver_args)

  # The driver's pre-check (exit 127 for an op it does not know) runs once, as the fixture
  # every case test requires: a failing driver stops the run with one clear message, and no
  # case test starts the driver a second time to check it again.
  set(precheck_fixture "${mcp_ping_name}/precheck")
  set(precheck_arguments run --precheck-only --revision "${mcp_ping_revision}"
    --timeout-multiplier "${mcp_ping_timeout_multiplier}"
    --report-dir "${mcp_ping_report_dir}/precheck" --)
  _mcp_ping_bracket_list(precheck_arguments precheck_args)
  _mcp_ping_bracket("${precheck_fixture}" fixture)
  _mcp_ping_bracket("${mcp_ping_runner}" runner)
  _mcp_ping_bracket("mcp-ping-conformance;${mcp_ping_labels}" labels)
  if(form STREQUAL "CONFIGURE")
    set(code "add_test(NAME ${fixture} COMMAND ${runner}${precheck_args}${driver_args})\n")
  else()
    set(code "add_test(${fixture} ${runner}${precheck_args}${driver_args})\n")
  endif()
  string(APPEND code "set_tests_properties(${fixture} PROPERTIES\n"
    "  LABELS ${labels}\n"
    "  FIXTURES_SETUP ${fixture}\n"
    "  TIMEOUT ${mcp_ping_timeout})\n")
  set(count 0)
  string(JSON cases GET "${json}" cases)
  _mcp_ping_json_indices("${cases}" case_indices)
  foreach(case_index IN LISTS case_indices)
    string(JSON case GET "${cases}" ${case_index})
    string(JSON id GET "${case}" id)
    string(JSON area GET "${case}" area)
    string(JSON level GET "${case}" level)
    string(TOLOWER "${level}" level)
    # Cases whose verdict depends on CPU time run alone (the fixture's "exclusive").
    string(JSON exclusive GET "${case}" exclusive)
    if(exclusive)
      set(serial TRUE)
    else()
      set(serial FALSE)
    endif()
    string(JSON transports GET "${case}" transports)
    _mcp_ping_json_indices("${transports}" transport_indices)
    foreach(index IN LISTS transport_indices)
      string(JSON transport GET "${transports}" ${index})
      if(NOT transport IN_LIST mcp_ping_transports)
        continue()
      endif()
      set(test_name "${mcp_ping_name}/${transport}/${id}")
      set(report_dir "${mcp_ping_report_dir}/${transport}/${id}")
      set(arguments run
        --scenario "${id}" --transport "${transport}" --revision "${mcp_ping_revision}"
        ${strict_flag} ${baseline_flag} ${schemas_flag}
        --timeout-multiplier "${mcp_ping_timeout_multiplier}"
        --fixtures "${mcp_ping_fixtures}" --jobs 1 --unsupported-exit-code 77 --ctest-measurements
        --no-precheck --report-dir "${report_dir}" --)
      _mcp_ping_bracket_list(arguments runner_args)
      _mcp_ping_bracket("${test_name}" name)
      _mcp_ping_bracket("mcp-ping-conformance;${transport};${level};${area};${mcp_ping_labels}"
        labels)
      _mcp_ping_bracket("${report_dir}/cases/${transport}/${id}/transcript.txt" transcript)
      if(form STREQUAL "CONFIGURE")
        string(APPEND code "add_test(NAME ${name} COMMAND ${runner}${runner_args}${driver_args})\n")
      else()
        string(APPEND code "add_test(${name} ${runner}${runner_args}${driver_args})\n")
      endif()
      string(APPEND code "set_tests_properties(${name} PROPERTIES\n"
        "  LABELS ${labels}\n"
        "  SKIP_RETURN_CODE 77\n"
        "  RUN_SERIAL ${serial}\n"
        "  FIXTURES_REQUIRED ${fixture}\n"
        "  TIMEOUT ${mcp_ping_timeout}\n"
        "  ATTACHED_FILES_ON_FAIL ${transcript})\n")
      math(EXPR count "${count} + 1")
    endforeach()
  endforeach()
  set(${out} "${code}" PARENT_SCOPE)
  set(${count_out} ${count} PARENT_SCOPE)
endfunction()

# The location of an imported executable, for running it at configure time.
function(_mcp_ping_imported_location target out)
  set(location "")
  if(CMAKE_BUILD_TYPE)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
    get_target_property(location ${target} IMPORTED_LOCATION_${config})
  endif()
  if(NOT location)
    get_target_property(configs ${target} IMPORTED_CONFIGURATIONS)
    if(configs)
      foreach(config IN LISTS configs)
        string(TOUPPER "${config}" config)
        get_target_property(location ${target} IMPORTED_LOCATION_${config})
        if(location)
          break()
        endif()
      endforeach()
    endif()
  endif()
  if(NOT location)
    get_target_property(location ${target} IMPORTED_LOCATION)
  endif()
  if(NOT location)
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: ${target} names no executable")
  endif()
  set(${out} "${location}" PARENT_SCOPE)
endfunction()

function(mcp_ping_conformance_add_tests)
  cmake_parse_arguments(PARSE_ARGV 0 arg "STRICT"
    "NAME;REVISION;TIMEOUT_MULTIPLIER;REPORT_DIR;BASELINE;SCHEMAS"
    "DRIVER;TRANSPORTS;SCENARIOS;LABELS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME OR NOT arg_DRIVER)
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: NAME and DRIVER are required")
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
    set(runner_target mcp-ping-conformance)
  elseif(TARGET McpPingConformance::mcp-ping-conformance)
    set(runner_target McpPingConformance::mcp-ping-conformance)
  else()
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: no mcp-ping-conformance target")
  endif()
  if(DEFINED MCP_PING_CONFORMANCE_FIXTURES_DIR)
    set(fixtures "${MCP_PING_CONFORMANCE_FIXTURES_DIR}")
  else()
    set(fixtures "${_mcp_ping_module_dir}/../fixtures")
  endif()
  cmake_path(ABSOLUTE_PATH fixtures NORMALIZE)
  if(NOT IS_DIRECTORY "${fixtures}")
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: no fixtures at ${fixtures}")
  endif()
  # Not read here: the runner reads them. Listed so that editing one regenerates the tests.
  file(GLOB_RECURSE fixture_files CONFIGURE_DEPENDS "${fixtures}/*")

  # The settings, under the names _mcp_ping_tests_code() and the build step read.
  set(mcp_ping_name "${arg_NAME}")
  set(mcp_ping_driver ${arg_DRIVER})
  set(mcp_ping_transports ${arg_TRANSPORTS})
  set(mcp_ping_scenarios ${arg_SCENARIOS})
  set(mcp_ping_revision "${arg_REVISION}")
  set(mcp_ping_strict ${arg_STRICT})
  set(mcp_ping_timeout_multiplier "${arg_TIMEOUT_MULTIPLIER}")
  set(mcp_ping_report_dir "${arg_REPORT_DIR}")
  set(mcp_ping_labels ${arg_LABELS})
  set(mcp_ping_fixtures "${fixtures}")
  math(EXPR mcp_ping_timeout "60 * ${arg_TIMEOUT_MULTIPLIER}" OUTPUT_FORMAT DECIMAL)
  set(mcp_ping_baseline "")
  if(arg_BASELINE)
    cmake_path(ABSOLUTE_PATH arg_BASELINE NORMALIZE)
    set(mcp_ping_baseline "${arg_BASELINE}")
  endif()
  if(NOT DEFINED arg_SCHEMAS)
    set(arg_SCHEMAS "${MCP_PING_SCHEMAS_DIR}")
  endif()
  set(mcp_ping_schemas "")
  if(arg_SCHEMAS)
    cmake_path(ABSOLUTE_PATH arg_SCHEMAS NORMALIZE)
    if(NOT EXISTS "${arg_SCHEMAS}")
      message(FATAL_ERROR "mcp_ping_conformance_add_tests: SCHEMAS ${arg_SCHEMAS}: no such folder "
        "(a checkout of the MCP specification repository's schema/ folder)")
    endif()
    set(mcp_ping_schemas "${arg_SCHEMAS}")
  endif()
  set(mcp_ping_runner "$<TARGET_FILE:${runner_target}>")

  get_target_property(imported ${runner_target} IMPORTED)
  if(imported)
    # An installed runner: ask it now.
    _mcp_ping_imported_location(${runner_target} runner_file)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${runner_file}")
    _mcp_ping_list_json("${runner_file}" "${fixtures}" "${arg_SCENARIOS}" json)
    _mcp_ping_tests_code("${json}" CONFIGURE code count)
    cmake_language(EVAL CODE "${code}")
    message(STATUS "mcp-ping-conformance: ${count} conformance tests for '${arg_NAME}'")
    return()
  endif()

  # A runner built in this tree: the tests are written by a build step once it exists.
  string(MAKE_C_IDENTIFIER "${arg_NAME}" safe_name)
  set(base "${CMAKE_CURRENT_BINARY_DIR}/mcp-ping-conformance-tests/${safe_name}")
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    set(params_file "${base}-params-$<CONFIG>.cmake")
    set(tests_file "${base}-tests-$<CONFIG>.cmake")
    # ctest picks the file of the configuration it tests (-C).
    set(tests_file_arg "\"${base}-tests-\${CTEST_CONFIGURATION_TYPE}.cmake\"")
  else()
    set(params_file "${base}-params.cmake")
    set(tests_file "${base}-tests.cmake")
    _mcp_ping_bracket("${tests_file}" tests_file_arg)
  endif()
  set(params "")
  foreach(setting IN ITEMS name driver transports scenarios revision strict
                           timeout_multiplier report_dir labels fixtures timeout baseline schemas
                           runner)
    _mcp_ping_bracket_list(mcp_ping_${setting} values)
    string(APPEND params "set(mcp_ping_${setting}${values})\n")
  endforeach()
  # Generator expressions in DRIVER and the runner's path are evaluated here.
  file(GENERATE OUTPUT "${params_file}" CONTENT "${params}")

  set(step_target "mcp-ping-conformance-tests-${safe_name}")
  if(TARGET ${step_target})
    message(FATAL_ERROR "mcp_ping_conformance_add_tests: NAME ${arg_NAME}: target ${step_target} "
      "exists already (each NAME once, and not two that differ only in punctuation)")
  endif()
  add_custom_command(OUTPUT "${tests_file}"
    COMMAND "${CMAKE_COMMAND}" "-DMCP_PING_CONFORMANCE_PARAMS=${params_file}"
      "-DMCP_PING_CONFORMANCE_TESTS_FILE=${tests_file}" -P "${_mcp_ping_module_file}"
    DEPENDS ${runner_target} "${params_file}" "${_mcp_ping_module_file}" ${fixture_files}
    COMMENT "Listing the mcp-ping-conformance tests for '${arg_NAME}'"
    VERBATIM)
  add_custom_target(${step_target} ALL DEPENDS "${tests_file}")

  _mcp_ping_bracket("${arg_NAME}/NOT_BUILT" placeholder)
  _mcp_ping_bracket("${CMAKE_COMMAND}" cmake_command)
  _mcp_ping_bracket("mcp-ping-conformance: the tests of '${arg_NAME}' are listed when the target ${step_target} is built; build it (or all) first"
    placeholder_message)
  _mcp_ping_bracket("mcp-ping-conformance;${arg_LABELS}" placeholder_labels)
  file(WRITE "${base}-include.cmake"
    "if(EXISTS ${tests_file_arg})\n"
    "  include(${tests_file_arg})\n"
    "else()\n"
    "  add_test(${placeholder} ${cmake_command} -E echo ${placeholder_message})\n"
    "  set_tests_properties(${placeholder} PROPERTIES WILL_FAIL TRUE LABELS ${placeholder_labels})\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${base}-include.cmake")
  message(STATUS "mcp-ping-conformance: the conformance tests for '${arg_NAME}' are listed "
    "at build time (target ${step_target})")
endfunction()

# The build step: cmake -DMCP_PING_CONFORMANCE_PARAMS=<file> -DMCP_PING_CONFORMANCE_TESTS_FILE=<file>
# -P McpPingConformance.cmake writes the tests of the catalogue for ctest to include.
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE AND DEFINED MCP_PING_CONFORMANCE_PARAMS)
  include("${MCP_PING_CONFORMANCE_PARAMS}")
  _mcp_ping_list_json("${mcp_ping_runner}" "${mcp_ping_fixtures}" "${mcp_ping_scenarios}" json)
  _mcp_ping_tests_code("${json}" CTEST code count)
  file(WRITE "${MCP_PING_CONFORMANCE_TESTS_FILE}.new" "${code}")
  file(RENAME "${MCP_PING_CONFORMANCE_TESTS_FILE}.new" "${MCP_PING_CONFORMANCE_TESTS_FILE}")
  message(STATUS "mcp-ping-conformance: ${count} conformance tests for '${mcp_ping_name}'")
endif()

cmake_policy(POP)
