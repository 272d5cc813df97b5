# Fails when a C++ file includes a header of a layer it must not depend on, or sits in a
# folder no rule names (docs/development.md, "Include layering"). The ctest test
# style/layering runs it; by hand:
#
#   cmake -DSOURCE_DIR=<repo> -P cmake/CheckLayering.cmake
#
# Only #include "..." with a folder counts: <...> includes (system and third-party headers)
# and same-folder includes are free. Every folder holding C++ has a rule, the first match:
#
#   folder                          may include (header prefixes)
#   core/                           core/
#   reports/                        core/ reports/
#   mock_servers/engine/include/    core/ engine/ (the engine's public headers)
#   mock_servers/engine/src/        core/ engine/ steps/
#   mock_servers/stdio/             core/ engine/ stdio/
#   mock_servers/http/              core/ engine/ http/
#   mock_servers/{tests,fuzz}/      core/ engine/ http/ stdio/
#   conformance/{src,include}/      core/ reports/ conformance/, and engine/script.hpp
#   conformance/{tests,fuzz}/       core/ reports/ conformance/ engine/
#   drivers/                        conformance/ in its tests (to start drivers), nothing else
#   reference_client/               mcp/ (its own headers: it stands apart from the suite)
#   conformance/broken_client/, fuzz/, benchmarks/, cmake/tests/, docs/tests/: nothing
cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "CheckLayering.cmake: give -DSOURCE_DIR=<repository>")
endif()
cmake_path(ABSOLUTE_PATH SOURCE_DIR NORMALIZE)
string(REGEX REPLACE "/$" "" SOURCE_DIR "${SOURCE_DIR}")

# The rule for `file`: the header prefixes it may include ("engine/script.hpp" is a whole
# header), or "none of the suite"; NOTFOUND when no rule names its folder.
function(layering_rule file out)
  set(rules
    "^core/=core/"
    "^reports/=core/ reports/"
    "^mock_servers/engine/include/=core/ engine/"
    "^mock_servers/engine/src/=core/ engine/ steps/"
    "^mock_servers/stdio/=core/ engine/ stdio/"
    "^mock_servers/http/=core/ engine/ http/"
    "^mock_servers/(tests|fuzz)/=core/ engine/ http/ stdio/"
    "^conformance/(src|include)/=core/ reports/ conformance/ engine/script.hpp"
    "^conformance/(tests|fuzz)/=core/ reports/ conformance/ engine/"
    "^drivers/[^/]+/[^/]+/tests/=conformance/"
    "^reference_client/=mcp/"
    "^(conformance/broken_client|drivers|fuzz|benchmarks|cmake/tests|docs/tests)/=")
  foreach(rule IN LISTS rules)
    string(REPLACE "=" ";" parts "${rule}")
    list(GET parts 0 folder)
    list(LENGTH parts fields)
    if(file MATCHES "${folder}")
      set(allowed "")
      if(fields GREATER 1)
        list(GET parts 1 allowed)
        separate_arguments(allowed UNIX_COMMAND "${allowed}")
      endif()
      set(${out} "${allowed}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} NOTFOUND PARENT_SCOPE)
endfunction()

# Why `header`, included by `file` under rule `allowed`, breaks the layering; empty if not.
function(layering_violation file header allowed out)
  set(why "")
  if(header MATCHES "/")
    set(ok FALSE)
    foreach(prefix IN LISTS allowed)
      if((prefix MATCHES "/$" AND header MATCHES "^${prefix}") OR header STREQUAL prefix)
        set(ok TRUE)
      endif()
    endforeach()
    if(NOT ok)
      list(JOIN allowed " " shown)
      if(shown STREQUAL "")
        set(shown "nothing of the suite")
      endif()
      set(why "this folder may include only: ${shown}")
    endif()
  endif()
  set(${out} "${why}" PARENT_SCOPE)
endfunction()

include("${CMAKE_CURRENT_LIST_DIR}/ProjectSources.cmake")
project_sources(files "${SOURCE_DIR}")
# Not the broken trees the tests style/*-catches-* run the checks on.
list(FILTER files EXCLUDE REGEX "^cmake/tests/data/")

set(violations "")
foreach(file IN LISTS files)
  layering_rule("${file}" allowed)
  if(allowed STREQUAL "NOTFOUND")
    list(APPEND violations "${file}: no layering rule names its folder (add one to cmake/CheckLayering.cmake)")
    continue()
  endif()
  file(READ "${SOURCE_DIR}/${file}" content)
  # Each #include "..." at the start of a line, with its line number.
  set(rest "\n${content}")
  set(line 0)
  while(rest MATCHES "\n[ \t]*#[ \t]*include[ \t]*\"([^\"\n]+)\"")
    set(match "${CMAKE_MATCH_0}")
    set(header "${CMAKE_MATCH_1}")
    string(FIND "${rest}" "${match}" at)
    string(LENGTH "${match}" length)
    math(EXPR after "${at} + ${length}")
    string(SUBSTRING "${rest}" 0 ${at} before)
    string(REGEX MATCHALL "\n" newlines "${before}")
    list(LENGTH newlines skipped)
    math(EXPR line "${line} + ${skipped} + 1")
    string(SUBSTRING "${rest}" ${after} -1 rest)
    layering_violation("${file}" "${header}" "${allowed}" why)
    if(why)
      list(APPEND violations "${file}:${line}: #include \"${header}\": ${why}")
    endif()
  endwhile()
endforeach()

list(LENGTH files total)
list(LENGTH violations count)
if(count GREATER 0)
  list(JOIN violations "\n  " shown)
  message(FATAL_ERROR "${count} include(s) break the layering (docs/development.md):\n  ${shown}")
endif()
message(STATUS "${total} files keep to the layering")
