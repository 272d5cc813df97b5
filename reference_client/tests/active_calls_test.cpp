#include "active_calls.hpp"

#include "http_test_server.hpp"

#include <gtest/gtest.h>

#include <future>

namespace mcp::detail {
namespace {

using namespace std::chrono_literals;
using test::HttpTestServer;
using test::SseChannel;

TEST(ActiveCalls, CloseAbortsEveryCallInFlightAndRefusesNewOnes) {
  HttpTestServer http;
  std::atomic<int> opened = 0;
  std::promise<void> both_open;
  std::vector<std::shared_ptr<SseChannel>> channels;
  std::mutex channels_mutex;
  http.server().Get("/s", [&](const httplib::Request&, httplib::Response& response) {
    auto channel = SseChannel::make();
    channel->attach(response);
    {
      std::lock_guard lock(channels_mutex);
      channels.push_back(channel);
    }
    if (++opened == 2) both_open.set_value();
  });
  ASSERT_TRUE(http.start());

  ActiveCalls calls;
  const auto stream = [&] {
    auto call = calls.open(http.url(""), {2s, 3600s, 2s});
    return call ? call->run("GET", "/s", {}, "", nullptr, nullptr).error : std::error_code();
  };
  auto first = std::async(std::launch::async, stream);
  auto second = std::async(std::launch::async, stream);
  ASSERT_EQ(both_open.get_future().wait_for(10s), std::future_status::ready);

  EXPECT_TRUE(calls.close(10s));
  EXPECT_EQ(first.get(), std::errc::operation_canceled);
  EXPECT_EQ(second.get(), std::errc::operation_canceled);
  EXPECT_FALSE(calls.open(http.url(""), {}));
}

TEST(ActiveCalls, CloseWithNothingInFlightReturnsAtOnce) {
  ActiveCalls calls;
  {
    auto lease = calls.open("http://127.0.0.1:1", {});
    EXPECT_TRUE(lease);
  }
  EXPECT_TRUE(calls.close(0ms));
}

}  // namespace
}  // namespace mcp::detail
