// The HTTP host end to end, in process: a real HttpChannel on a free loopback port running
// the interpreter, driven by httplib clients. Every wait is bounded.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "engine/interpreter.hpp"
#include "http/http_channel.hpp"
#include "test_support.hpp"

namespace mcpping {
namespace {

using test::check_def;
using test::find_check;
using test::records_of;

constexpr auto kBound = std::chrono::seconds(10);
const Json kAcceptBoth = "application/json, text/event-stream";

// The server and the interpreter running the script, on their own thread.
class Harness {
 public:
  explicit Harness(const Json& script, const std::string& transport = "streamable-http",
                   const Json& http = Json::object(),
                   const std::map<std::string, double>& timeouts = {})
      : resolved_(make(script, transport, http, timeouts)) {
    HttpOptions options;
    options.legacy = transport == "sse";
    options.post_always_sse = resolved_["http"].value("post_responses", "auto") == "sse";
    options.deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(
                                          resolved_["timeouts"]["case_deadline_ms"].get<double>()));
    channel_ = std::make_unique<HttpChannel>(transcript_, options);
    channel_->start();
    run_ = std::async(std::launch::async, [this] {
      Interpreter interpreter(resolved_, *channel_, transcript_);
      return interpreter.run();
    });
  }
  ~Harness() {
    channel_->stop();
    if (run_.valid()) run_.wait_for(kBound);
  }

  int port() const { return channel_->port(); }
  // Waits (bounded) for the interpreter to end; its `end` reason.
  std::string finish() {
    if (run_.wait_for(kBound) != std::future_status::ready) return "still running";
    return run_.get();
  }
  std::vector<Json> records() const { return transcript_.records(); }
  HttpChannel& channel() { return *channel_; }

 private:
  static Json make(const Json& script, const std::string& transport, const Json& http,
                   const std::map<std::string, double>& timeouts) {
    auto r = test::make_resolved(script, timeouts, transport);
    if (!http.empty()) r["http"] = http;
    validate_resolved_script(r, "test");
    return r;
  }

  Json resolved_;
  Transcript transcript_;
  std::unique_ptr<HttpChannel> channel_;
  std::future<std::string> run_;
};

httplib::Headers headers(const std::string& session = {}, const std::string& version = {}) {
  httplib::Headers h{{"Accept", kAcceptBoth.get<std::string>()}};
  if (!session.empty()) h.emplace("Mcp-Session-Id", session);
  if (!version.empty()) h.emplace("MCP-Protocol-Version", version);
  return h;
}

Json initialize_request(const std::string& version = "2025-11-25") {
  return {{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "initialize"},
          {"params",
           {{"protocolVersion", version},
            {"capabilities", Json::object()},
            {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}};
}
const Json kInitialized = {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};

Json call_request(int id) {
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"method", "tools/call"},
          {"params", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}}}};
}

// Reads one streaming response (POST or GET) on its own thread; tests wait for bytes.
class StreamReader {
 public:
  StreamReader(int port, std::string method, std::string path, httplib::Headers hdrs,
               std::string body = {})
      : client_("127.0.0.1", port) {
    client_.set_read_timeout(10, 0);
    thread_ = std::thread([this, method = std::move(method), path = std::move(path),
                           hdrs = std::move(hdrs), body = std::move(body)] {
      httplib::Request req;
      req.method = method;
      req.path = path;
      req.headers = hdrs;
      if (!body.empty()) {
        req.body = body;
        req.set_header("Content-Type", "application/json");
      }
      req.response_handler = [this](const httplib::Response& res) {
        const std::lock_guard lock(mutex_);
        status_ = res.status;
        response_headers_ = res.headers;
        cv_.notify_all();
        return true;
      };
      req.content_receiver = [this](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
        const std::lock_guard lock(mutex_);
        bytes_.append(data, n);
        ++chunks_;
        cv_.notify_all();
        return true;
      };
      httplib::Response res;
      httplib::Error error = httplib::Error::Success;
      client_.send(req, res, error);
      const std::lock_guard lock(mutex_);
      ended_ = true;
      if (status_ == 0) status_ = res.status;
      if (bytes_.empty()) bytes_ = res.body;
      cv_.notify_all();
    });
  }
  ~StreamReader() {
    client_.stop();
    thread_.join();
  }
  // The bytes once they contain `text` (or whatever came within the bound).
  std::string wait_for(const std::string& text) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, kBound, [&] { return bytes_.find(text) != std::string::npos || ended_; });
    return bytes_;
  }
  std::string wait_end() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, kBound, [&] { return ended_; });
    return bytes_;
  }
  int status() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, kBound, [&] { return status_ != 0 || ended_; });
    return status_;
  }
  std::string header(const std::string& name) {
    status();
    const std::lock_guard lock(mutex_);
    const auto it = response_headers_.find(name);
    return it == response_headers_.end() ? std::string() : it->second;
  }

 private:
  httplib::Client client_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string bytes_;
  std::size_t chunks_ = 0;
  int status_ = 0;
  httplib::Headers response_headers_;
  bool ended_ = false;
};

// A simple client for one-shot requests.
struct Client {
  explicit Client(int port) : cli("127.0.0.1", port) { cli.set_read_timeout(10, 0); }
  httplib::Result post(const Json& body, const httplib::Headers& h,
                       const std::string& path = "/mcp") {
    return cli.Post(path.c_str(), h, body.dump(), "application/json");
  }
  httplib::Client cli;
};

// Initialize + initialized; returns the session id.
std::string handshake(Harness& h, const std::string& version = "2025-11-25") {
  Client c(h.port());
  auto init = c.post(initialize_request(version), headers());
  EXPECT_TRUE(init);
  if (!init) return {};
  EXPECT_EQ(init->status, 200);
  EXPECT_EQ(init->get_header_value("Content-Type"), "application/json");
  auto session = init->get_header_value("Mcp-Session-Id");
  EXPECT_FALSE(session.empty());
  auto ack = c.post(kInitialized, headers(session, version));
  EXPECT_TRUE(ack);
  if (ack) {
    EXPECT_EQ(ack->status, 202);
  }
  return session;
}

void delete_session(Harness& h, const std::string& session) {
  Client c(h.port());
  auto res = c.cli.Delete("/mcp", headers(session, "2025-11-25"));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

// The JSON data of every `data:` line in `bytes` that parses.
std::vector<Json> data_messages(const std::string& bytes) {
  std::vector<Json> out;
  std::size_t pos = 0;
  while ((pos = bytes.find("data: ", pos)) != std::string::npos) {
    const auto end = bytes.find('\n', pos);
    auto json = Json::parse(bytes.substr(pos + 6, end - pos - 6), nullptr, false);
    if (!json.is_discarded()) out.push_back(json);
    pos = end;
  }
  return out;
}

Json ping_frame(const std::string& id) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}};
}
Json pong(const std::string& id) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", Json::object()}};
}

Json expect_call() {
  return {{"expect", {{"method", "tools/call"}}}, {"as", "call"}, {"check", check_def("call")}};
}

TEST(HttpServer, PingOnThePostStreamIsAnsweredByASeparatePostGetting202) {
  Harness h(Json::array({{{"handshake", Json::object()}},
                         expect_call(),
                         {{"send", ping_frame("p1")}, {"label", "ping"}},
                         {{"expect_response", "ping"}, {"check", check_def("pong")}},
                         {{"expect_post", "ping"},
                          {"http",
                           {{"status", 202},
                            {"headers",
                             {{"mcp-session-id", {{"$type", "string"}}},
                              {"accept", {{"$contains", "text/event-stream"}}}}}}},
                          {"check", check_def("pong-post")}},
                         {{"respond", "call"}, {"default", true}}}));
  const auto session = handshake(h);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  const auto first = call.wait_for("\"ping\"");
  EXPECT_EQ(call.header("Content-Type"), "text/event-stream");
  ASSERT_EQ(data_messages(first).size(), 1u) << first;
  EXPECT_EQ(data_messages(first)[0], ping_frame("p1"));

  Client c(h.port());
  auto answer = c.post(pong("p1"), headers(session, "2025-11-25"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 202);
  EXPECT_TRUE(answer->body.empty());

  const auto all = call.wait_end();
  const auto messages = data_messages(all);
  ASSERT_EQ(messages.size(), 2u) << all;
  EXPECT_EQ(messages[1]["id"], 2);
  EXPECT_EQ(messages[1]["result"]["content"][0]["text"], "hi");
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pong")["outcome"], "met");
  EXPECT_EQ(find_check(records, "pong-post")["outcome"], "met")
      << find_check(records, "pong-post").dump();
  bool framed = false;
  for (const auto& r : records_of(records, "frame"))
    if (r.value("dir", "") == "s2c" && r.value("stream", "") == "post:2") framed = true;
  EXPECT_TRUE(framed);
  EXPECT_FALSE(records_of(records, "http").empty());
}

// Regression: frames coalesced into one SSE chunk share one write; the second frame's wait
// found the first one's record consumed, reported "the stream ended" and stopped the script.
TEST(HttpServer, CoalescedFramesOnOneStreamAreAllReportedWritten) {
  Harness h(
      Json::array({{{"handshake", Json::object()}},
                   expect_call(),
                   {{"send", Json::array({ping_frame("c1"), ping_frame("c2"), ping_frame("c3")})},
                    {"label", "pings"},
                    {"write", "coalesced"}},
                   {{"expect_response", "pings"}, {"check", check_def("pongs")}},
                   {{"respond", "call"}, {"default", true}}}));
  const auto session = handshake(h);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  const auto first = call.wait_for("\"c3\"");
  ASSERT_EQ(data_messages(first).size(), 3u) << first;
  Client c(h.port());
  for (const char* id : {"c1", "c2", "c3"}) {
    auto answer = c.post(pong(id), headers(session, "2025-11-25"));
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 202);
  }
  call.wait_end();
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_EQ(find_check(records, "pongs")["outcome"], "met") << find_check(records, "pongs").dump();
  for (const auto& r : records_of(records, "event")) {
    EXPECT_EQ(r.value("what", "").find("write failed"), std::string::npos) << r.dump();
  }
}

TEST(HttpServer, PingOnTheGetStream) {
  Harness h(Json::array({{{"handshake", Json::object()}},
                         {{"await_get_stream", Json::object()}},
                         {{"send", ping_frame("g1")}, {"label", "ping"}, {"on", "get"}},
                         {{"expect_response", "ping"}, {"check", check_def("pong")}}}));
  const auto session = handshake(h);
  auto get_headers = headers(session, "2025-11-25");
  get_headers.erase("Accept");
  get_headers.emplace("Accept", "text/event-stream");
  StreamReader get(h.port(), "GET", "/mcp", get_headers);
  const auto bytes = get.wait_for("\"g1\"");
  EXPECT_EQ(get.status(), 200);
  ASSERT_EQ(data_messages(bytes).size(), 1u) << bytes;
  // A second GET stream for the same session is refused.
  Client c(h.port());
  auto second = c.cli.Get("/mcp", get_headers);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 409);
  auto answer = c.post(pong("g1"), headers(session, "2025-11-25"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 202);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  EXPECT_EQ(find_check(h.records(), "pong")["outcome"], "met");
  bool opened = false;
  for (const auto& r : records_of(h.records(), "sse"))
    if (r["stream"] == "get" && r["what"] == "open") opened = true;
  EXPECT_TRUE(opened);
}

TEST(HttpServer, AwaitGetStreamWithoutOneIsUnsupported) {
  Harness h(Json::array({{{"handshake", Json::object()}},
                         {{"await_get_stream", Json::object()}, {"within", "quiet_ms"}},
                         {{"send", ping_frame("never")}, {"on", "get"}}}));
  const auto session = handshake(h);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto unsupported = records_of(h.records(), "unsupported");
  ASSERT_EQ(unsupported.size(), 1u);
  EXPECT_NE(unsupported[0]["reason"].get<std::string>().find("GET"), std::string::npos);
  for (const auto& r : records_of(h.records(), "frame"))
    EXPECT_EQ(r["text"].get<std::string>().find("never"), std::string::npos)
        << "the script stopped before its send";
}

// A lenient server: what it cannot process or attribute is refused with its status; a
// missing or wrong header is recorded as the rule's check and the request goes on, so a pong
// that lacks a header is still judged as a pong.
TEST(HttpServer, RequestValidationStatusesAndImplicitChecks) {
  Harness h(Json::array({{{"handshake", Json::object()}}}));
  const auto session = handshake(h);
  Client c(h.port());
  auto no_session = c.post(call_request(5), headers({}, "2025-11-25"));
  ASSERT_TRUE(no_session);
  EXPECT_EQ(no_session->status, 200);  // attributed to the only session
  auto unknown = c.post(call_request(6), headers("no-such-session", "2025-11-25"));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  auto wrong_version = c.post(call_request(7), headers(session, "2025-03-26"));
  ASSERT_TRUE(wrong_version);
  EXPECT_EQ(wrong_version->status, 200);
  auto no_version = c.post(call_request(8), headers(session));
  ASSERT_TRUE(no_version);
  EXPECT_EQ(no_version->status, 200);
  auto garbage =
      c.cli.Post("/mcp", headers(session, "2025-11-25"), "{not json", "application/json");
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 400);
  const auto error = Json::parse(garbage->body);
  EXPECT_EQ(error["error"]["code"], -32700);
  EXPECT_FALSE(error.contains("id"));
  httplib::Headers json_only{{"Accept", "application/json"},
                             {"Mcp-Session-Id", session},
                             {"MCP-Protocol-Version", "2025-11-25"}};
  auto json_accept = c.post(call_request(9), json_only);
  ASSERT_TRUE(json_accept);
  EXPECT_EQ(json_accept->status, 200);
  auto text =
      c.cli.Post("/mcp", headers(session, "2025-11-25"), call_request(10).dump(), "text/plain");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->status, 200);
  auto big = c.cli.Post("/mcp", headers(session, "2025-11-25"), std::string((4u << 20) + 1, ' '),
                        "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");

  const auto records = h.records();
  EXPECT_EQ(find_check(records, "http:session-id")["outcome"], "broken");
  EXPECT_EQ(find_check(records, "http:session-id")["implicit"], true);
  EXPECT_EQ(find_check(records, "http:protocol-version")["outcome"], "broken");
  EXPECT_EQ(test::count_checks(records, "http:protocol-version"), 1u) << "recorded once";
  EXPECT_EQ(find_check(records, "transport:valid-message")["outcome"], "broken");
  EXPECT_EQ(find_check(records, "http:accept")["outcome"], "broken");
  EXPECT_EQ(find_check(records, "http:content-type")["outcome"], "broken");
  EXPECT_EQ(find_check(records, "http:content-type")["level"], "SHOULD");
  EXPECT_EQ(find_check(records, "http:body-too-large")["outcome"], "broken");
  EXPECT_EQ(find_check(records, "http:body-too-large")["level"], "INFO");
  std::set<Json> reached;
  for (const auto& r : records_of(records, "frame"))
    if (r.value("dir", "") == "c2s" && r["json"].value("method", "") == "tools/call")
      reached.insert(r["json"]["id"]);
  // Accepted despite a broken header rule: they reached the script. Refused: they did not.
  EXPECT_EQ(reached, (std::set<Json>{5, 7, 8, 9, 10}));
}

// Regression: a GET probe before initialize (no session exists yet) was recorded as an
// http:session-id MUST failure; the session rules start once a session was issued.
TEST(HttpServer, GetBeforeInitializeIsRefusedAndNotedNotFailed) {
  Harness h(Json::array({{{"handshake", Json::object()}}}));
  Client c(h.port());
  auto early = c.cli.Get("/mcp", httplib::Headers{{"Accept", "text/event-stream"}});
  ASSERT_TRUE(early);
  EXPECT_EQ(early->status, 400);
  const auto session = handshake(h);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  const auto records = h.records();
  EXPECT_TRUE(find_check(records, "http:session-id").is_null());
  const auto noted = find_check(records, "http:before-initialize");
  EXPECT_EQ(noted["level"], "INFO");
  EXPECT_NE(noted["actual"].get<std::string>().find("GET /mcp before initialize"),
            std::string::npos)
      << noted;
  EXPECT_EQ(find_check(records, "handshake")["outcome"], "met");
}

class FailNextPost : public ::testing::TestWithParam<std::string> {};

TEST_P(FailNextPost, TheMatchingPostGetsTheFaultAndStillReachesTheScript) {
  const std::string with = GetParam();
  const Json with_json = with == "reset" ? Json(with) : Json(std::stoi(with));
  const Json status = with == "reset" ? Json(0) : Json(std::stoi(with));
  Harness h(Json::array({{{"handshake", Json::object()}},
                         expect_call(),
                         {{"fail_next_post", {{"id", "p1"}}}, {"with", with_json}},
                         {{"send", ping_frame("p1")}, {"label", "ping"}},
                         {{"expect_post", "ping"},
                          {"http", {{"status", status}, {"fault", with}}},
                          {"check", check_def("faulted")}},
                         {{"respond", "call"}, {"default", true}}}));
  const auto session = handshake(h);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  call.wait_for("\"p1\"");
  Client c(h.port());
  auto answer = c.post(pong("p1"), headers(session, "2025-11-25"));
  if (with == "reset") {
    EXPECT_FALSE(answer) << "the connection is dropped without a response";
  } else {
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, std::stoi(with));
  }
  EXPECT_EQ(data_messages(call.wait_end()).size(), 2u);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  EXPECT_EQ(find_check(h.records(), "faulted")["outcome"], "met")
      << find_check(h.records(), "faulted").dump();
}

INSTANTIATE_TEST_SUITE_P(HttpServer, FailNextPost, ::testing::Values("500", "404", "reset"));

TEST(HttpServer, SseFramingOptionsGiveTheExactBytes) {
  Harness h(
      Json::array({{{"handshake", Json::object()}},
                   expect_call(),
                   {{"send", ping_frame("a")},
                    {"sse",
                     {{"line_end", "\r\n"},
                      {"prefix", ": hello\r\n\r\n"},
                      {"id", "e1"},
                      {"retry", 500},
                      {"event", "message"}}}},
                   {{"send", ping_frame("b")}, {"sse", {{"multiline", true}, {"event", nullptr}}}},
                   {{"send", ping_frame("c")}, {"write", "chopped"}, {"chunk", 7}},
                   {{"respond", "call"}, {"default", true}}}));
  const auto session = handshake(h);
  StreamReader call(h.port(), "POST", "/mcp", headers(session, "2025-11-25"),
                    call_request(2).dump());
  const auto bytes = call.wait_end();
  const std::string a = R"({"id":"a","jsonrpc":"2.0","method":"ping"})";
  const std::string c = R"({"id":"c","jsonrpc":"2.0","method":"ping"})";
  const std::string expected_start =
      ": hello\r\n\r\nevent: message\r\nid: e1\r\nretry: 500\r\ndata: " + a + "\r\n\r\n" +
      "data: {\ndata:   \"id\": \"b\",\ndata:   \"jsonrpc\": \"2.0\",\ndata:   \"method\": "
      "\"ping\"\ndata: }\n\n" +
      "event: message\ndata: " + c + "\n\n";
  EXPECT_EQ(bytes.substr(0, expected_start.size()), expected_start);
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
  std::size_t chopped_writes = 0;
  for (const auto& r : records_of(h.records(), "frame"))
    if (r.value("dir", "") == "s2c" && r["json"].value("id", Json()) == "c")
      chopped_writes = r.value("writes", std::size_t{1});
  const auto event_size = ("event: message\ndata: " + c + "\n\n").size();
  EXPECT_EQ(chopped_writes, (event_size + 6) / 7);
}

TEST(HttpServer, PostResponsesCanBeForcedToSse) {
  Harness h(Json::array({{{"handshake", Json::object()}}}), "streamable-http",
            {{"post_responses", "sse"}});
  StreamReader init(h.port(), "POST", "/mcp", headers(), initialize_request().dump());
  const auto bytes = init.wait_end();
  EXPECT_EQ(init.header("Content-Type"), "text/event-stream");
  ASSERT_EQ(data_messages(bytes).size(), 1u) << bytes;
  EXPECT_EQ(data_messages(bytes)[0]["result"]["protocolVersion"], "2025-11-25");
}

TEST(HttpServer, LegacySseEndpointEventPostAndMessageEvents) {
  Harness h(Json::array({{{"handshake", Json::object()}},
                         {{"send", ping_frame("L1")}, {"label", "ping"}},
                         {{"expect_response", "ping"}, {"check", check_def("pong")}}}),
            "sse");
  StreamReader sse(h.port(), "GET", "/sse", {{"Accept", "text/event-stream"}});
  const auto opening = sse.wait_for("\n\n");
  const std::string prefix = "event: endpoint\ndata: /message?sessionId=";
  ASSERT_EQ(opening.substr(0, prefix.size()), prefix) << opening;
  const auto data_at = opening.find("data: ") + 6;
  const auto path = opening.substr(data_at, opening.find('\n', data_at) - data_at);
  Client c(h.port());
  auto init = c.post(initialize_request("2024-11-05"), {}, path);
  ASSERT_TRUE(init);
  EXPECT_EQ(init->status, 202);
  sse.wait_for("\"protocolVersion\"");
  auto ack = c.post(kInitialized, {}, path);
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->status, 202);
  const auto with_ping = sse.wait_for("\"L1\"");
  EXPECT_NE(with_ping.find("event: message\ndata: {\"id\":1,"), std::string::npos) << with_ping;
  EXPECT_NE(with_ping.find("event: message\ndata: " + ping_frame("L1").dump()), std::string::npos);
  auto answer = c.post(pong("L1"), {}, path);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 202);
  auto unknown = c.post(pong("L1"), {}, "/message?sessionId=nope");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  h.channel().stop();  // ends the stream the way a shutdown does
  h.finish();
  EXPECT_EQ(find_check(h.records(), "pong")["outcome"], "met");
}

TEST(HttpServer, AFloodOfConcurrentRequestsGetsStatusesAndNoHang) {
  Harness h(Json::array({{{"handshake", Json::object()}}}));
  const auto session = handshake(h);
  constexpr int kRequests = 200;
  std::vector<std::thread> threads;
  std::vector<int> statuses(kRequests, -1);
  for (int i = 0; i < kRequests; ++i) {
    threads.emplace_back([&, i] {
      httplib::Client cli("127.0.0.1", h.port());
      cli.set_read_timeout(10, 0);
      cli.set_connection_timeout(10, 0);
      // Alternate answered pings with messages the server must reject, fast.
      const Json body = i % 2 ? Json{{"jsonrpc", "2.0"}, {"id", 1000 + i}, {"method", "ping"}}
                              : Json("not a message");
      auto res = cli.Post("/mcp", headers(session, "2025-11-25"), body.dump(), "application/json");
      statuses[static_cast<std::size_t>(i)] = res ? res->status : -static_cast<int>(res.error());
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kRequests; ++i) {
    const auto s = statuses[static_cast<std::size_t>(i)];
    if (i % 2) {
      EXPECT_TRUE(s == 200 || s == 503) << i << ": " << s;
    } else {
      EXPECT_EQ(s, 400) << i;
    }
  }
  // Still serving afterwards.
  Client c(h.port());
  auto after = c.post(Json{{"jsonrpc", "2.0"}, {"id", "last"}, {"method", "ping"}},
                      headers(session, "2025-11-25"));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_EQ(Json::parse(after->body)["result"], Json::object());
  delete_session(h, session);
  EXPECT_EQ(h.finish(), "eof");
}

TEST(HttpServer, ManyStreamsOpenedFastAreCappedWith503) {
  // Forced SSE: every admitted POST gets its headers at once and stays open while the script
  // waits for a method that never comes.
  Harness h(Json::array({{{"handshake", Json::object()}},
                         {{"expect", {{"method", "never"}}},
                          {"within", "observe_ms"},
                          {"check", check_def("never", "INFO")}}}),
            "streamable-http", {{"post_responses", "sse"}},
            {{"observe_ms", 8000}, {"case_deadline_ms", 15000}});
  StreamReader init(h.port(), "POST", "/mcp", headers(), initialize_request().dump());
  init.wait_end();
  const auto session = init.header("Mcp-Session-Id");
  Client c(h.port());
  ASSERT_EQ(c.post(kInitialized, headers(session, "2025-11-25"))->status, 202);
  std::vector<std::unique_ptr<StreamReader>> open;
  for (int i = 0; i < 60; ++i) {
    open.push_back(std::make_unique<StreamReader>(
        h.port(), "POST", "/mcp", headers(session, "2025-11-25"), call_request(100 + i).dump()));
  }
  int admitted = 0, refused = 0;
  for (auto& r : open) {
    const auto status = r->status();
    admitted += status == 200;
    refused += status == 503;
  }
  EXPECT_EQ(admitted, 48);
  EXPECT_EQ(refused, 12);
  auto ping = c.post(Json{{"jsonrpc", "2.0"}, {"id", "x"}, {"method", "ping"}},
                     headers(session, "2025-11-25"));
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 503) << "the cap holds while the held requests wait";
  h.channel().stop();
  h.finish();
}

}  // namespace
}  // namespace mcpping
