# Fails when a generated document in docs/ differs from what the runner generates now.
# cmake -DRUNNER=<mcp-ping-conformance> -DDOC=<docs file> -DOUT=<scratch file> -P CheckGeneratedDoc.cmake
execute_process(COMMAND "${RUNNER}" list --markdown OUTPUT_FILE "${OUT}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${RUNNER} list --markdown failed: ${status}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${DOC}" "${OUT}" RESULT_VARIABLE differs)
if(differs)
  message(FATAL_ERROR "${DOC} is out of date; regenerate it:\n  ${RUNNER} list --markdown > ${DOC}")
endif()
