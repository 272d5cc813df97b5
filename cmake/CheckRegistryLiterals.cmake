# Fails when production C++ spells out a protocol revision or a transport outside their
# registries (core/src/revision.cpp, core/src/transport.cpp; docs/architecture.md,
# "Registries"), naming file and line. The ctest test style/registry-literals runs it; by hand:
#
#   cmake -DSOURCE_DIR=<repo> -P cmake/CheckRegistryLiterals.cmake
#
# Production C++ is every .cpp and .hpp under core/, mock_servers/, conformance/ and reports/
# but tests/, fuzz/ and the broken client. A literal is a whole string literal:
# "2025-11-25" (any date), "stdio", "streamable-http"; a date inside a sentence is prose.
# "sse" also names a step key, a stream and a record kind, so it counts only on a line that
# speaks of a transport. Comments are free.
cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "CheckRegistryLiterals.cmake: give -DSOURCE_DIR=<repository>")
endif()
cmake_path(ABSOLUTE_PATH SOURCE_DIR NORMALIZE)
string(REGEX REPLACE "/$" "" SOURCE_DIR "${SOURCE_DIR}")

set(registries "core/src/revision.cpp" "core/src/transport.cpp")
set(revision "\"20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]\"")
set(transport "\"(stdio|streamable-http)\"")

# The literal `code` (one line, comments cut) spells out, or empty.
function(stray_literal code out)
  set(found "")
  if(code MATCHES "${revision}")
    set(found "${CMAKE_MATCH_0}")
  elseif(code MATCHES "${transport}")
    set(found "${CMAKE_MATCH_0}")
  elseif(code MATCHES "\"sse\"" AND code MATCHES "[Tt]ransport")
    set(found "\"sse\"")
  endif()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

set(files "")
foreach(folder core mock_servers conformance reports)
  file(GLOB_RECURSE found RELATIVE "${SOURCE_DIR}"
    "${SOURCE_DIR}/${folder}/*.cpp" "${SOURCE_DIR}/${folder}/*.hpp")
  list(APPEND files ${found})
endforeach()
list(FILTER files EXCLUDE REGEX "(^|/)(tests|fuzz|broken_client)/")
list(REMOVE_ITEM files ${registries})
list(SORT files)

set(violations "")
foreach(file IN LISTS files)
  file(READ "${SOURCE_DIR}/${file}" content)
  if(NOT content MATCHES "\"(20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]|stdio|streamable-http|sse)\"")
    continue()
  endif()
  # One list element per line: the characters CMake's lists treat specially go first.
  string(REPLACE "\\" "|" content "${content}")
  string(REPLACE ";" "," content "${content}")
  string(REPLACE "[" "(" content "${content}")
  string(REPLACE "]" ")" content "${content}")
  string(REPLACE "\n" ";" lines "${content}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES "^[ \t]*(//|/?\\*)")
      continue()
    endif()
    string(REGEX REPLACE "[ \t]//.*$" "" code "${line}")
    stray_literal("${code}" literal)
    if(literal)
      list(APPEND violations "${file}:${number}: ${literal}")
    endif()
  endforeach()
endforeach()

list(LENGTH files total)
list(LENGTH violations count)
if(count GREATER 0)
  list(JOIN violations "\n  " shown)
  message(FATAL_ERROR "${count} literal(s) outside the registries; use core/revision.hpp or "
    "core/transport.hpp (docs/architecture.md, \"Registries\"):\n  ${shown}")
endif()
message(STATUS "${total} files spell no revision or transport outside the registries")
