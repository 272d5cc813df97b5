#include "http_call.hpp"

#include "http_test_server.hpp"

#include <gtest/gtest.h>

#include <future>

namespace mcp::detail {
namespace {

using namespace std::chrono_literals;
using test::HttpTestServer;
using test::SseChannel;

HttpTimeouts quick() { return {2s, 10s, 2s}; }

TEST(HttpHead, MediaTypeIgnoresParametersCaseAndSpaces) {
  HttpHead head;
  head.headers.emplace("content-type", " Text/Event-Stream ; charset=utf-8");
  EXPECT_EQ(head.media_type(), "text/event-stream");
  EXPECT_EQ(head.header("Content-Type"), " Text/Event-Stream ; charset=utf-8");
  EXPECT_EQ(head.header("X-Missing"), "");
  EXPECT_EQ(HttpHead{}.media_type(), "");
}

TEST(HttpCall, DeliversTheHeadThenTheBodyAsItArrives) {
  HttpTestServer http;
  auto channel = SseChannel::make();
  std::promise<void> first_piece_read;
  http.server().Get("/s", [&](const httplib::Request& request, httplib::Response& response) {
    response.set_header("X-Echo", request.get_header_value("X-Test"));
    channel->attach(response);
    channel->push("one");
  });
  ASSERT_TRUE(http.start());

  HttpCall call("http://127.0.0.1:" + std::to_string(http.port()), quick());
  std::string body;
  int heads = 0;
  const auto result = call.run(
      "GET", "/s", {{"X-Test", "yes"}}, "",
      [&](const HttpHead& head) {
        ++heads;
        EXPECT_EQ(head.status, 200);
        EXPECT_EQ(head.header("X-Echo"), "yes");
        return true;
      },
      [&](std::string_view piece) {
        body.append(piece);
        if (body == "one") {
          // The second piece is written only after the first was consumed: streaming.
          channel->push("two");
          channel->close();
        }
        return true;
      });
  EXPECT_FALSE(result.error) << result.detail;
  ASSERT_TRUE(result.head);
  EXPECT_EQ(heads, 1);
  EXPECT_EQ(body, "onetwo");
}

TEST(HttpCall, AnErrorStatusIsAHeadNotAnError) {
  HttpTestServer http;
  http.server().Post("/p", [](const httplib::Request& request, httplib::Response& response) {
    response.status = 404;
    response.set_content(request.get_header_value("Content-Type") + "|" + request.body,
                         "text/plain");
  });
  ASSERT_TRUE(http.start());
  HttpCall call(http.url(""), quick());
  std::string body;
  const auto result = call.run("POST", "/p", {{"Content-Type", "application/json"}}, "{}", nullptr,
                               [&](std::string_view piece) {
                                 body.append(piece);
                                 return true;
                               });
  EXPECT_FALSE(result.error);
  ASSERT_TRUE(result.head);
  EXPECT_EQ(result.head->status, 404);
  EXPECT_EQ(body, "application/json|{}");
}

TEST(HttpCall, ANoContentAnswerStillReportsItsHead) {
  HttpTestServer http;
  http.server().Delete(
      "/d", [](const httplib::Request&, httplib::Response& response) { response.status = 204; });
  ASSERT_TRUE(http.start());
  HttpCall call(http.url(""), quick());
  int heads = 0;
  const auto result = call.run(
      "DELETE", "/d", {}, "", [&](const HttpHead&) { return ++heads, true; }, nullptr);
  EXPECT_FALSE(result.error);
  ASSERT_TRUE(result.head);
  EXPECT_EQ(result.head->status, 204);
  EXPECT_EQ(heads, 1);
}

TEST(HttpCall, SkippingTheBodyIsNotAnError) {
  HttpTestServer http;
  auto channel = SseChannel::make();
  http.server().Get("/s", [&](const httplib::Request&, httplib::Response& response) {
    response.status = 409;
    channel->attach(response);  // a body that would never end
  });
  ASSERT_TRUE(http.start());
  HttpCall call(http.url(""), quick());
  const auto result = call.run(
      "GET", "/s", {}, "", [](const HttpHead& head) { return head.ok(); }, nullptr);
  EXPECT_FALSE(result.error) << result.detail;
  ASSERT_TRUE(result.head);
  EXPECT_EQ(result.head->status, 409);
}

TEST(HttpCall, ARefusedConnectionHasNoHead) {
  int port = 0;
  {
    HttpTestServer gone;
    ASSERT_TRUE(gone.start());
    port = gone.port();
  }
  HttpCall call("http://127.0.0.1:" + std::to_string(port), quick());
  const auto result = call.run("GET", "/", {}, "", nullptr, nullptr);
  EXPECT_FALSE(result.head);
  EXPECT_EQ(result.error, std::errc::connection_refused);
}

TEST(HttpCall, AbortEndsABlockingStreamPromptly) {
  HttpTestServer http;
  auto channel = SseChannel::make();
  http.server().Get("/s", [&](const httplib::Request&, httplib::Response& response) {
    channel->attach(response);
    channel->push(":open\n\n");
  });
  ASSERT_TRUE(http.start());
  HttpCall call(http.url(""), {2s, 3600s, 2s});
  std::promise<void> streaming;
  auto running = std::async(std::launch::async, [&] {
    bool once = false;
    return call.run("GET", "/s", {}, "", nullptr, [&](std::string_view) {
      if (!once) streaming.set_value();
      once = true;
      return true;
    });
  });
  ASSERT_EQ(streaming.get_future().wait_for(10s), std::future_status::ready);
  const auto started = std::chrono::steady_clock::now();
  call.abort();
  ASSERT_EQ(running.wait_for(10s), std::future_status::ready);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  const auto result = running.get();
  EXPECT_EQ(result.error, std::errc::operation_canceled);
  EXPECT_TRUE(call.aborted());
  EXPECT_TRUE(channel->wait_gone());  // the server saw the client leave
}

TEST(HttpCall, AnAbortedCallNeverSendsItsRequest) {
  HttpTestServer http;
  std::atomic<int> requests = 0;
  http.server().Get("/", [&](const httplib::Request&, httplib::Response&) { ++requests; });
  ASSERT_TRUE(http.start());
  HttpCall call(http.url(""), quick());
  call.abort();
  const auto result = call.run("GET", "/", {}, "", nullptr, nullptr);
  EXPECT_EQ(result.error, std::errc::operation_canceled);
  EXPECT_FALSE(result.head);
  http.stop();  // joins the server: any request would have been handled by now
  EXPECT_EQ(requests, 0);
}

}  // namespace
}  // namespace mcp::detail
