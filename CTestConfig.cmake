# CDash submission settings, read by include(CTest). Point CTEST_SUBMIT_URL at your own
# CDash server (or override it with -DCTEST_SUBMIT_URL=... / in a ctest -S script).
set(CTEST_PROJECT_NAME "mcp-ping-conformance")
set(CTEST_NIGHTLY_START_TIME "01:00:00 UTC")
if(NOT DEFINED CTEST_SUBMIT_URL)
  set(CTEST_SUBMIT_URL "http://localhost/cdash/submit.php?project=mcp-ping-conformance")
endif()
set(CTEST_DROP_SITE_CDASH TRUE)
