# The fixed dependencies, as Debian 12 packages them. See docs/design-decisions.md.
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED CONFIG)
find_package(Boost 1.81 REQUIRED CONFIG)
if(MCP_PING_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
find_package(yaml-cpp 0.7 REQUIRED CONFIG)  # baseline files

# valijson validates client messages against the specification's JSON schemas (header-only;
# Debian 12: libvalijson-dev). Found by its header, whatever its package's CMake file does.
if(NOT TARGET mcp_valijson)
  find_path(MCP_PING_VALIJSON_INCLUDE_DIR valijson/validator.hpp)
  if(NOT MCP_PING_VALIJSON_INCLUDE_DIR)
    message(FATAL_ERROR "valijson not found (valijson/validator.hpp): install the Debian 12 "
      "package libvalijson-dev (cmake/bootstrap.sh does), or give its include folder with "
      "-DMCP_PING_VALIJSON_INCLUDE_DIR=<dir>")
  endif()
  add_library(mcp_valijson INTERFACE)
  target_include_directories(mcp_valijson SYSTEM INTERFACE "${MCP_PING_VALIJSON_INCLUDE_DIR}")
  target_compile_definitions(mcp_valijson INTERFACE VALIJSON_USE_EXCEPTIONS=1)
  target_link_libraries(mcp_valijson INTERFACE nlohmann_json::nlohmann_json)
endif()

# Debian's cpp-httplib is a compiled library with a pkg-config file only; its -D flags
# change class layouts, so they must come from pkg-config (building without them crashes).
find_package(httplib 0.11 CONFIG QUIET)
if(NOT TARGET httplib::httplib)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(CPPHTTPLIB REQUIRED IMPORTED_TARGET GLOBAL cpp-httplib>=0.11)
  add_library(httplib::httplib ALIAS PkgConfig::CPPHTTPLIB)
endif()

# Boost.Process v2 is header-only in 1.81. Use std::filesystem, and force-include the
# headers that v2/detail/config.hpp forgets (boostorg/process#280).
if(NOT TARGET mcp_process_support)
  add_library(mcp_process_support INTERFACE)
  target_link_libraries(mcp_process_support INTERFACE Boost::headers Threads::Threads)
  target_compile_definitions(mcp_process_support INTERFACE BOOST_PROCESS_USE_STD_FS)
  target_compile_options(mcp_process_support INTERFACE
    "SHELL:-include boost/optional.hpp" "SHELL:-include boost/type_traits.hpp")
endif()

include(GoogleTest)
