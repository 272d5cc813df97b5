# Fails when a generated document in docs/ differs from what the runner generates now.
# cmake -DRUNNER=<mcp-ping-conformance> -DDOC=<docs file> -DOUT=<scratch file>
#       [-DLIST_ARGS="<list options, space-separated; default --markdown>"] -P CheckGeneratedDoc.cmake
if(NOT DEFINED LIST_ARGS)
  set(LIST_ARGS --markdown)
endif()
separate_arguments(args UNIX_COMMAND "${LIST_ARGS}")
execute_process(COMMAND "${RUNNER}" list ${args} OUTPUT_FILE "${OUT}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${RUNNER} list ${LIST_ARGS} failed: ${status}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${DOC}" "${OUT}" RESULT_VARIABLE differs)
if(differs)
  message(FATAL_ERROR "${DOC} is out of date; regenerate it:\n  ${RUNNER} list ${LIST_ARGS} > ${DOC}")
endif()
