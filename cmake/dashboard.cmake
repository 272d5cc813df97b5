# CDash dashboard client: configures and builds mcp-ping-conformance, runs its tests and
# submits the results to the CDash server named by CTEST_SUBMIT_URL (CTestConfig.cmake).
#
#   ctest -S cmake/dashboard.cmake                    # Experimental, every test
#   ctest -S cmake/dashboard.cmake,Nightly            # model: Experimental, Nightly or Continuous
#   ctest -DDASHBOARD_TEST_LABEL=mcp-ping-conformance -S cmake/dashboard.cmake -V
#   ctest -DCTEST_SUBMIT_URL="https://cdash.example.org/submit.php?project=mcp-ping-conformance" \
#         -S cmake/dashboard.cmake
#
# Settings, each a -D<name>=<value> before -S:
#   DASHBOARD_MODEL          Experimental (default), Nightly or Continuous; the script argument
#                            after the comma sets it too
#   CTEST_SUBMIT_URL         where to submit; default: CTestConfig.cmake of the source tree
#   CTEST_SITE               default: this machine's host name
#   CTEST_BUILD_NAME         default: <distribution>-<version>-<architecture>-<build type>
#   CTEST_SOURCE_DIRECTORY   default: the checkout this script is in
#   CTEST_BINARY_DIRECTORY   default: <source>/build-dashboard
#   CTEST_CMAKE_GENERATOR    default: Ninja when installed, else Unix Makefiles
#   DASHBOARD_BUILD_TYPE     default: RelWithDebInfo
#   DASHBOARD_CMAKE_OPTIONS  more configure options, a list: "-DMCP_PING_SANITIZE=ON;-DX=Y"
#   DASHBOARD_TEST_LABEL     run only tests whose labels match this regex
#   DASHBOARD_TEST_INCLUDE   run only tests whose names match this regex
#   DASHBOARD_JOBS           parallel build and test jobs; default: the number of cores
#   DASHBOARD_FRESH          ON: empty the build folder first (the default for Nightly)
#   DASHBOARD_SUBMIT         OFF: do everything but submit (default ON)
#
# Every step is submitted even when an earlier one failed, so the dashboard shows where a
# build broke. The exit status is non-zero when configure, build, a test or the submission
# failed. Continuous means one run per call: a CI job or a cron entry repeats it.
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED DASHBOARD_MODEL)
  if(CTEST_SCRIPT_ARG)
    set(DASHBOARD_MODEL "${CTEST_SCRIPT_ARG}")
  else()
    set(DASHBOARD_MODEL Experimental)
  endif()
endif()
if(NOT DASHBOARD_MODEL MATCHES "^(Experimental|Nightly|Continuous)$")
  message(FATAL_ERROR "dashboard: unknown model '${DASHBOARD_MODEL}' "
                      "(Experimental, Nightly or Continuous)")
endif()

if(NOT DEFINED CTEST_SOURCE_DIRECTORY)
  cmake_path(GET CTEST_SCRIPT_DIRECTORY PARENT_PATH CTEST_SOURCE_DIRECTORY)
endif()
if(NOT DEFINED CTEST_BINARY_DIRECTORY)
  set(CTEST_BINARY_DIRECTORY "${CTEST_SOURCE_DIRECTORY}/build-dashboard")
endif()
if(NOT DEFINED DASHBOARD_BUILD_TYPE)
  set(DASHBOARD_BUILD_TYPE RelWithDebInfo)
endif()
set(CTEST_CONFIGURATION_TYPE "${DASHBOARD_BUILD_TYPE}")

if(NOT DEFINED CTEST_CMAKE_GENERATOR)
  find_program(dashboard_ninja ninja)
  if(dashboard_ninja)
    set(CTEST_CMAKE_GENERATOR Ninja)
  else()
    set(CTEST_CMAKE_GENERATOR "Unix Makefiles")
  endif()
endif()

if(NOT DEFINED CTEST_SITE)
  cmake_host_system_information(RESULT CTEST_SITE QUERY HOSTNAME)
endif()
if(NOT DEFINED CTEST_BUILD_NAME)
  cmake_host_system_information(RESULT dashboard_os QUERY DISTRIB_ID DISTRIB_VERSION_ID OS_PLATFORM)
  list(APPEND dashboard_os "${DASHBOARD_BUILD_TYPE}")
  list(REMOVE_ITEM dashboard_os "")
  list(JOIN dashboard_os "-" CTEST_BUILD_NAME)
endif()

if(NOT DEFINED DASHBOARD_JOBS)
  cmake_host_system_information(RESULT DASHBOARD_JOBS QUERY NUMBER_OF_LOGICAL_CORES)
endif()
if(NOT DEFINED DASHBOARD_FRESH)
  if(DASHBOARD_MODEL STREQUAL "Nightly")
    set(DASHBOARD_FRESH ON)
  else()
    set(DASHBOARD_FRESH OFF)
  endif()
endif()
if(NOT DEFINED DASHBOARD_SUBMIT)
  set(DASHBOARD_SUBMIT ON)
endif()

# ctest_empty_binary_directory() refuses a folder without a CMakeCache.txt, so it never
# wipes a folder that is not a build.
if(DASHBOARD_FRESH AND EXISTS "${CTEST_BINARY_DIRECTORY}/CMakeCache.txt")
  ctest_empty_binary_directory("${CTEST_BINARY_DIRECTORY}")
endif()

# ctest_start() reads <source>/CTestConfig.cmake, which keeps a CTEST_SUBMIT_URL set here.
ctest_start("${DASHBOARD_MODEL}")
message("dashboard: ${DASHBOARD_MODEL} build '${CTEST_BUILD_NAME}' on site '${CTEST_SITE}'"
               " in ${CTEST_BINARY_DIRECTORY}")

set(dashboard_failed "")
ctest_configure(
  OPTIONS "-DCMAKE_BUILD_TYPE=${DASHBOARD_BUILD_TYPE};${DASHBOARD_CMAKE_OPTIONS}"
  RETURN_VALUE configure_status)
if(NOT configure_status EQUAL 0)
  list(APPEND dashboard_failed configure)
else()
  ctest_build(PARALLEL_LEVEL ${DASHBOARD_JOBS} NUMBER_ERRORS build_errors
              RETURN_VALUE build_status)
  if(NOT build_status EQUAL 0 OR build_errors GREATER 0)
    list(APPEND dashboard_failed build)
  else()
    set(test_selection "")
    if(DASHBOARD_TEST_LABEL)
      list(APPEND test_selection INCLUDE_LABEL "${DASHBOARD_TEST_LABEL}")
    endif()
    if(DASHBOARD_TEST_INCLUDE)
      list(APPEND test_selection INCLUDE "${DASHBOARD_TEST_INCLUDE}")
    endif()
    ctest_test(PARALLEL_LEVEL ${DASHBOARD_JOBS} ${test_selection} RETURN_VALUE test_status)
    if(NOT test_status EQUAL 0)
      list(APPEND dashboard_failed tests)
    endif()
  endif()
endif()

if(DASHBOARD_SUBMIT)
  message("dashboard: submitting to ${CTEST_SUBMIT_URL}")
  ctest_submit(RETRY_COUNT 2 RETRY_DELAY 10 RETURN_VALUE submit_status)
  if(NOT submit_status EQUAL 0)
    list(APPEND dashboard_failed submission)
  endif()
endif()

if(dashboard_failed)
  list(JOIN dashboard_failed ", " dashboard_failed)
  message(FATAL_ERROR "dashboard: failed: ${dashboard_failed}")
endif()
message("dashboard: done")
