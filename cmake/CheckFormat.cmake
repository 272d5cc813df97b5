# Fails when a C++ source of the project drifts from the repository's .clang-format, and
# lists the files that do. The ctest test style/clang-format runs it; by hand:
#
#   cmake -DSOURCE_DIR=<repo> [-DCLANG_FORMAT=<clang-format>] -P cmake/CheckFormat.cmake
#
# Every C++ file below SOURCE_DIR is checked (ProjectSources.cmake: not build folders, nor what
# the drivers' package managers install). The formatting is that of clang-format 14 (Debian 12);
# other versions format some constructs differently, so with another version, or none, the
# check reports itself skipped instead of failing on differences that are not drift.
# docs/development.md.
cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "CheckFormat.cmake: give -DSOURCE_DIR=<repository>")
endif()
cmake_path(ABSOLUTE_PATH SOURCE_DIR NORMALIZE)
string(REGEX REPLACE "/$" "" SOURCE_DIR "${SOURCE_DIR}")
if(NOT CLANG_FORMAT)
  find_program(CLANG_FORMAT NAMES clang-format-14 clang-format)
endif()
if(NOT CLANG_FORMAT)
  message("style check skipped: clang-format 14 not found (Debian: apt-get install clang-format)")
  return()
endif()
execute_process(COMMAND "${CLANG_FORMAT}" --version OUTPUT_VARIABLE version
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT version MATCHES "version 14\\.")
  message("style check skipped: ${CLANG_FORMAT} is not clang-format 14 (${version})")
  return()
endif()

# The project's sources, without build folders and third-party code.
include("${CMAKE_CURRENT_LIST_DIR}/ProjectSources.cmake")
project_sources(files "${SOURCE_DIR}")
list(LENGTH files total)
if(total EQUAL 0)
  message(FATAL_ERROR "CheckFormat.cmake: no *.cpp or *.hpp below ${SOURCE_DIR}")
endif()

# One run over every file; each violation is reported as "<file>:<line>:<col>: error: ...".
execute_process(COMMAND "${CLANG_FORMAT}" --dry-run -Werror --style=file ${files}
  WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE report)
set(drifting "")
if(NOT status EQUAL 0)
  string(REGEX MATCHALL "[^\n]+:[0-9]+:[0-9]+: (error|warning): " located "${report}")
  foreach(line IN LISTS located)
    string(REGEX REPLACE ":[0-9]+:[0-9]+: (error|warning): $" "" file "${line}")
    if(file IN_LIST files)
      list(APPEND drifting "${file}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES drifting)
  if(NOT drifting)
    message(FATAL_ERROR "${CLANG_FORMAT} failed (${status}):\n${report}")
  endif()
endif()

list(LENGTH drifting count)
if(count GREATER 0)
  list(JOIN drifting "\n  " shown)
  message(FATAL_ERROR "${count} of ${total} files drift from .clang-format (${version}):\n"
    "  ${shown}\n"
    "Fix them with: clang-format -i <file>... (from ${SOURCE_DIR})")
endif()
message(STATUS "${total} files match .clang-format (${version})")
