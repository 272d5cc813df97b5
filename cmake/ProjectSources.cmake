# The project's own C++ files, for the style checks run with cmake -P (CheckFormat.cmake,
# CheckLayering.cmake, CheckFileSize.cmake): every *.cpp, *.hpp, *.h and *.cc below `root`,
# relative to it and sorted, except build folders (top-level build*), git's own, and what the
# drivers' package managers install (node_modules, target, .venv, anywhere).
function(project_sources out root)
  file(GLOB_RECURSE files RELATIVE "${root}"
    "${root}/*.cpp" "${root}/*.hpp" "${root}/*.h" "${root}/*.cc")
  list(FILTER files EXCLUDE REGEX "^(build[^/]*|\\.git)/|(^|/)(node_modules|target|\\.venv)/")
  list(SORT files)
  set(${out} "${files}" PARENT_SCOPE)
endfunction()
