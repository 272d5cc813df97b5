# Fails when a source file includes a header of a layer it must not depend on
# (docs/development.md). The ctest test style/layering runs it; by hand:
#
#   cmake -DSOURCE_DIR=<repo> -P cmake/CheckLayering.cmake
#
# Only #include "..." counts; <...> includes (system and third-party headers) are free.
# Test and fuzz folders (any path with a tests/ or fuzz/ component) are not checked.
#
#   reports/            may include only "reports/..." and "core/..."
#   conformance/core/   may include nothing of "engine/", "reports/", "conformance/", "http/",
#                       "stdio/"
#   conformance/ (rest) may include no "http/..." or "stdio/...", and of "engine/..." only
#                       "engine/script.hpp"
cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "CheckLayering.cmake: give -DSOURCE_DIR=<repository>")
endif()
cmake_path(ABSOLUTE_PATH SOURCE_DIR NORMALIZE)
string(REGEX REPLACE "/$" "" SOURCE_DIR "${SOURCE_DIR}")

# Why `header`, included by `file` (both relative), breaks the layering; empty when it does not.
function(layering_violation file header out)
  set(why "")
  if(file MATCHES "^reports/")
    if(NOT header MATCHES "^(reports|core)/")
      set(why "reports/ may include only \"reports/...\" and \"core/...\"")
    endif()
  elseif(file MATCHES "^conformance/core/")
    if(header MATCHES "^(engine|reports|conformance|http|stdio)/")
      set(why "conformance/core/ may include nothing of engine/, reports/, conformance/, http/, stdio/")
    endif()
  elseif(file MATCHES "^conformance/")
    if(header MATCHES "^(http|stdio)/" OR
       (header MATCHES "^engine/" AND NOT header STREQUAL "engine/script.hpp"))
      set(why "conformance/ may include no http/ or stdio/ header, and of engine/ only engine/script.hpp")
    endif()
  endif()
  set(${out} "${why}" PARENT_SCOPE)
endfunction()

set(patterns "")
foreach(dir IN ITEMS reports conformance)
  foreach(extension IN ITEMS cpp hpp h cc)
    list(APPEND patterns "${SOURCE_DIR}/${dir}/*.${extension}")
  endforeach()
endforeach()
file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}" ${patterns})
list(FILTER files EXCLUDE REGEX "(^|/)(tests|fuzz)/")
list(SORT files)

set(violations "")
foreach(file IN LISTS files)
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
    layering_violation("${file}" "${header}" why)
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
