#include "mcp/error.hpp"

#include <gtest/gtest.h>

namespace mcp {
namespace {

TEST(ErrorCategory, HasStableValuesAndMessages) {
  EXPECT_STREQ(client_category().name(), "mcp.client");
  EXPECT_EQ(static_cast<int>(errc::rpc_error), 1);
  EXPECT_EQ(static_cast<int>(errc::timeout), 2);
  EXPECT_EQ(static_cast<int>(errc::connection_closed), 3);
  EXPECT_EQ(static_cast<int>(errc::invalid_state), 9);
  EXPECT_EQ(static_cast<int>(errc::connection_failed), 10);
  EXPECT_EQ(static_cast<int>(errc::session_expired), 11);
  const std::error_code code = errc::timeout;
  EXPECT_EQ(code.category(), client_category());
  EXPECT_EQ(code.message(), "request timed out");
  EXPECT_TRUE(code == errc::timeout);
  EXPECT_FALSE(code == errc::connection_closed);
}

TEST(ErrorCategory, HttpStatusesAreErrorCodesOfTheirOwnCategory) {
  const std::error_code code = http_status_error(500);
  EXPECT_STREQ(code.category().name(), "mcp.http");
  EXPECT_EQ(code.value(), 500);
  EXPECT_EQ(code.message(), "HTTP status 500");
  EXPECT_NE(code, http_status_error(404));
  EXPECT_FALSE(code == errc::send_failed);
}

TEST(Error, CarriesTheJsonRpcErrorOfTheServer) {
  const Error error = Error::rpc(-32601, "Method not found", {{"method", "x"}});
  EXPECT_EQ(error.code(), errc::rpc_error);
  ASSERT_TRUE(error.rpc_code());
  EXPECT_EQ(*error.rpc_code(), -32601);
  EXPECT_STREQ(error.what(), "Method not found");
  EXPECT_EQ(error.data()["method"], "x");
}

TEST(Error, LocalErrorsHaveNoJsonRpcCode) {
  const Error error(errc::connection_closed, "server exited");
  EXPECT_EQ(error.code(), errc::connection_closed);
  EXPECT_FALSE(error.rpc_code());
  EXPECT_TRUE(error.data().is_null());
}

}  // namespace
}  // namespace mcp
