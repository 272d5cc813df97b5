# Fails when a C++ source or header of the project is longer than 700 lines, naming each such
# file with its line count (docs/development.md, "File and function size"). The ctest test
# style/file-size runs it; by hand:
#
#   cmake -DSOURCE_DIR=<repo> [-DLIMIT=<lines>] -P cmake/CheckFileSize.cmake
#
# Every C++ file below SOURCE_DIR counts (ProjectSources.cmake: not build folders, nor what the
# drivers' package managers install). Lines are counted as `wc -l` counts them. A file over the limit is split
# by responsibility (a test file per component), never trimmed by squeezing lines.
cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "CheckFileSize.cmake: give -DSOURCE_DIR=<repository>")
endif()
if(NOT LIMIT)
  set(LIMIT 700)
endif()
cmake_path(ABSOLUTE_PATH SOURCE_DIR NORMALIZE)
string(REGEX REPLACE "/$" "" SOURCE_DIR "${SOURCE_DIR}")

include("${CMAKE_CURRENT_LIST_DIR}/ProjectSources.cmake")
project_sources(files "${SOURCE_DIR}")
list(LENGTH files total)
if(total EQUAL 0)
  message(FATAL_ERROR "CheckFileSize.cmake: no C++ file below ${SOURCE_DIR}")
endif()

set(oversize "")
foreach(file IN LISTS files)
  file(READ "${SOURCE_DIR}/${file}" content)
  string(REGEX REPLACE "[^\n]+" "" newlines "${content}")
  string(LENGTH "${newlines}" lines)
  if(lines GREATER LIMIT)
    list(APPEND oversize "${file}: ${lines} lines")
  endif()
endforeach()

list(LENGTH oversize count)
if(count GREATER 0)
  list(JOIN oversize "\n  " shown)
  message(FATAL_ERROR
    "${count} file(s) over ${LIMIT} lines (docs/development.md; split by responsibility):\n  ${shown}")
endif()
message(STATUS "${total} files of at most ${LIMIT} lines")
