# The project's own CDash settings, so that the test also covers overriding them.
include("${CMAKE_CURRENT_LIST_DIR}/../../../CTestConfig.cmake")
