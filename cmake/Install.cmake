# `cmake --install` lays the suite out for other projects: the runner, the mock servers and
# the reference driver in bin/ (the runner finds the mock servers next to itself), the
# fixtures in share/, and a CMake package so that a client's project can
# find_package(McpPingConformance) and call mcp_ping_conformance_add_tests().
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MCP_PING_INSTALL_FIXTURES_DIR "${CMAKE_INSTALL_DATADIR}/mcp-ping-conformance/fixtures")
set(MCP_PING_INSTALL_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/McpPingConformance")

install(TARGETS mcp-ping-conformance mcp-mock-stdio-server mcp-mock-http-server
                mcp-reference-driver
  EXPORT McpPingConformanceTargets
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/fixtures/" DESTINATION "${MCP_PING_INSTALL_FIXTURES_DIR}")
install(EXPORT McpPingConformanceTargets
  NAMESPACE McpPingConformance::
  DESTINATION "${MCP_PING_INSTALL_CMAKE_DIR}")
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/McpPingConformanceConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/McpPingConformanceConfig.cmake"
  INSTALL_DESTINATION "${MCP_PING_INSTALL_CMAKE_DIR}"
  PATH_VARS MCP_PING_INSTALL_FIXTURES_DIR)
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/McpPingConformanceConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/McpPingConformanceConfig.cmake"
  "${PROJECT_BINARY_DIR}/McpPingConformanceConfigVersion.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/McpPingConformance.cmake"
  DESTINATION "${MCP_PING_INSTALL_CMAKE_DIR}")

# A consumer project, configured against an installation of this build, must register the
# suite through find_package and pass its ctest run.
if(MCP_PING_BUILD_TESTS)
  add_test(NAME package/find-package-consumer
    COMMAND "${CMAKE_COMMAND}"
      -DBUILD_DIR=${PROJECT_BINARY_DIR}
      -DSOURCE_DIR=${PROJECT_SOURCE_DIR}/cmake/tests/consumer
      -DWORK_DIR=${PROJECT_BINARY_DIR}/package-test
      -P "${PROJECT_SOURCE_DIR}/cmake/tests/ConsumePackage.cmake")
  set_tests_properties(package/find-package-consumer PROPERTIES LABELS package TIMEOUT 300)
endif()
