# libFuzzer targets (docs/fuzzing.md). Included when MCP_PING_FUZZ is ON: every library is
# then compiled with -fsanitize=fuzzer-no-link,address,undefined (set in the top-level
# CMakeLists.txt), and each target links libFuzzer's main with -fsanitize=fuzzer.
#
# mcp_ping_add_fuzzer(<name> SOURCES <file>... [LIBRARIES <lib>...] [DICT <file>])
#   builds fuzz/<name> (in the build folder) from SOURCES, with fuzz/support/ on its include
#   path, and registers the ctest test fuzz/<name> (label fuzz): a run of
#   MCP_PING_FUZZ_SECONDS over the committed seeds in corpus/<name>/ next to the calling
#   CMakeLists.txt. New corpus entries go to <build>/fuzz-corpus/<name>/ (never into the
#   source tree), crashing inputs to <build>/fuzz-artifacts/.

set(MCP_PING_FUZZ_SECONDS 10 CACHE STRING "How long each fuzz test (ctest -L fuzz) runs, in seconds")
set(MCP_PING_FUZZ_INPUT_TIMEOUT 10 CACHE STRING "libFuzzer -timeout: seconds one input may take")
set(MCP_PING_FUZZ_RSS_LIMIT_MB 2048 CACHE STRING "libFuzzer -rss_limit_mb")
# 0: a new seed each run (exploration); CI fixes one, so that its short runs try the same
# inputs each time and a new finding shows up in a fuzzing run, not as a random CI failure.
set(MCP_PING_FUZZ_SEED 0 CACHE STRING "libFuzzer -seed (0: random)")

add_custom_target(fuzzers)

function(mcp_ping_add_fuzzer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "DICT" "SOURCES;LIBRARIES")
  add_executable(${name} ${arg_SOURCES})
  target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}/fuzz/support")
  target_link_libraries(${name} PRIVATE ${arg_LIBRARIES})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/fuzz")
  add_dependencies(fuzzers ${name})

  set(seeds "${CMAKE_CURRENT_SOURCE_DIR}/corpus/${name}")
  if(NOT IS_DIRECTORY "${seeds}")
    message(FATAL_ERROR "mcp_ping_add_fuzzer(${name}): no seed corpus at ${seeds}")
  endif()
  set(work "${CMAKE_BINARY_DIR}/fuzz-corpus/${name}")
  set(artifacts "${CMAKE_BINARY_DIR}/fuzz-artifacts")
  file(MAKE_DIRECTORY "${work}" "${artifacts}")
  set(dict "")
  if(arg_DICT)
    set(dict "-dict=${arg_DICT}")
  endif()
  add_test(NAME fuzz/${name}
    COMMAND ${name} -max_total_time=${MCP_PING_FUZZ_SECONDS}
      -timeout=${MCP_PING_FUZZ_INPUT_TIMEOUT} -rss_limit_mb=${MCP_PING_FUZZ_RSS_LIMIT_MB}
      -seed=${MCP_PING_FUZZ_SEED} -print_final_stats=1 -artifact_prefix=${artifacts}/${name}- ${dict}
      "${work}" "${seeds}")
  # The bound: the run itself, plus loading the corpus and a slow input's -timeout.
  math(EXPR bound "${MCP_PING_FUZZ_SECONDS} + ${MCP_PING_FUZZ_INPUT_TIMEOUT} + 60")
  set_tests_properties(fuzz/${name} PROPERTIES LABELS fuzz TIMEOUT ${bound})
endfunction()
