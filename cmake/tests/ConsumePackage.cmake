# Installs this build into a scratch prefix, configures the consumer project against it with
# find_package, and runs the consumer's ctest: the package works from configure to ctest.
# cmake -DBUILD_DIR=... -DSOURCE_DIR=<consumer> -DWORK_DIR=... -P ConsumePackage.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
step("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
step("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/consumer" "-DCMAKE_PREFIX_PATH=${prefix}")
step("${CMAKE_CTEST_COMMAND}" --test-dir "${WORK_DIR}/consumer" --output-on-failure)
