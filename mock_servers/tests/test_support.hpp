// Shared helpers for the mock server tests: resolved scripts with test-sized timeouts,
// an in-memory Channel, transcript queries, and a scripted client to run the interpreter
// against.
#pragma once

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/pattern.hpp"
#include "engine/channel.hpp"
#include "engine/interpreter.hpp"
#include "engine/line_splitter.hpp"
#include "engine/script.hpp"
#include "engine/transcript.hpp"

namespace mcpping::test {

inline Defaults fixture_defaults() { return load_defaults(MCP_FIXTURES_DIR "/defaults.json"); }
inline SpecReferences fixture_refs() {
  return load_spec_references(MCP_FIXTURES_DIR "/spec-references.json");
}

// A resolved script around `script`, with short timeouts so failing waits stay quick.
inline Json make_resolved(const Json& script, const std::map<std::string, double>& overrides = {},
                          const std::string& transport = "stdio") {
  Scenario s;
  s.id = "test/case";
  s.transports = {transport};
  s.script = script;
  RunSettings run;
  run.transport = transport;
  auto r = resolve_script(s, fixture_defaults(), run);
  const std::map<std::string, double> fast = {
      {"expect_ms", 2000}, {"pong_cap_ms", 500}, {"late_pong_ms", 1500},    {"quiet_ms", 50},
      {"settle_ms", 5},    {"observe_ms", 300},  {"case_deadline_ms", 5000}};
  for (const auto& [k, v] : fast) r["timeouts"][k] = v;
  for (const auto& [k, v] : overrides) r["timeouts"][k] = v;
  r["line_cap_bytes"] = 4096;
  parse_resolved_script(r, "test");
  return r;
}

inline Json check_def(const std::string& id, const std::string& level = "MUST") {
  return Json{{"id", id}, {"level", level}, {"spec", {"ping.respond-promptly"}}};
}

// In-memory Channel. The fake client reacts synchronously to each frame the server sends
// (`on_frame`), so a test needs no threads to play a conversation.
class FakeChannel : public Channel {
 public:
  std::function<void(const Json& frame)> on_frame;
  // When set, write_stderr blocks until its deadline: a client that never drains stderr.
  bool stderr_blocks = false;

  explicit FakeChannel(std::size_t cap = 4096) : splitter_(cap) {}

  // Client bytes, arriving now plus `delay_ms` (to play a client that answers late
  // without the test waiting for it).
  void client_write(const std::string& bytes, double delay_ms = 0) {
    const std::lock_guard lock(mutex_);
    if (closed_) return;
    const auto at = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double, std::milli>(delay_ms));
    std::vector<Incoming> events;
    splitter_.feed(bytes, at, events);
    max_buffered_ = std::max(max_buffered_, splitter_.buffered());
    for (auto& e : events) queue_.push_back(std::move(e));
    cv_.notify_all();
  }
  void client_send(const Json& message, double delay_ms = 0) {
    client_write(message.dump() + "\n", delay_ms);
  }
  // A message with HTTP facts, as the HTTP host hands it over (e.g. {"fault": "500"}: a POST
  // the server refused).
  void client_send_with_meta(const Json& message, Json meta) {
    const std::lock_guard lock(mutex_);
    if (closed_) return;
    queue_.push_back(
        Incoming{Incoming::Kind::Line, message.dump(), 0, Clock::now(), std::move(meta)});
    cv_.notify_all();
  }
  void client_close() {
    const std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
    if (auto rest = splitter_.finish(Clock::now())) queue_.push_back(std::move(*rest));
    queue_.push_back(Incoming{Incoming::Kind::Eof, {}, 0, Clock::now()});
    cv_.notify_all();
  }

  SendResult send(const std::vector<std::string>& frames, const SendOptions& options) override {
    SendResult result;
    for (const auto& f : frames) {
      result.writes.push_back(options.mode == WriteMode::Chopped
                                  ? (f.size() + 1 + options.chunk - 1) / options.chunk
                                  : 1);
      result.done.push_back(Clock::now());
      modes.push_back(options.mode);
    }
    for (const auto& f : frames) {
      sent.push_back(Json::parse(f));
      if (on_frame) on_frame(sent.back());
    }
    return result;
  }
  SendResult send_raw(const std::string& bytes, std::size_t, const std::string&) override {
    raw_sent.push_back(bytes);
    SendResult result;
    result.writes.push_back(1);
    result.done.push_back(Clock::now());
    return result;
  }
  Incoming receive(Clock::time_point deadline) override {
    std::unique_lock lock(mutex_);
    cv_.wait_until(lock, deadline, [&] { return !queue_.empty() || input_end_.has_value(); });
    if (queue_.empty()) {
      return Incoming{input_end_ ? *input_end_ : Incoming::Kind::Timeout, {}, 0, Clock::now()};
    }
    auto in = queue_.front();
    if (in.kind != Incoming::Kind::Eof) queue_.pop_front();
    return in;
  }
  void end_input(Incoming::Kind why) override {
    {
      const std::lock_guard lock(mutex_);
      input_end_ = why;
    }
    cv_.notify_all();
  }
  void close_input() override { input_closed = true; }
  void close_output() override { output_closed = true; }
  std::size_t write_stderr(std::string_view bytes, Clock::time_point deadline) override {
    if (!stderr_blocks) {
      stderr_text.append(bytes);
      return bytes.size();
    }
    std::this_thread::sleep_until(deadline);  // stands for a write blocked on a full pipe
    return 0;
  }

  std::size_t max_buffered() const { return max_buffered_; }

  std::vector<Json> sent;
  std::vector<WriteMode> modes;
  std::vector<std::string> raw_sent;
  std::string stderr_text;
  bool input_closed = false;
  bool output_closed = false;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Incoming> queue_;
  LineSplitter splitter_;
  std::size_t max_buffered_ = 0;
  bool closed_ = false;
  std::optional<Incoming::Kind> input_end_;
};

inline std::vector<Json> records_of(const std::vector<Json>& records, const std::string& kind) {
  std::vector<Json> out;
  for (const auto& r : records) {
    if (r.value("kind", "") == kind) out.push_back(r);
  }
  return out;
}

// The check record with this short id; a null Json when there is none.
inline Json find_check(const std::vector<Json>& records, const std::string& id) {
  for (const auto& r : records) {
    if (r.value("kind", "") == "check" && r.value("check", "") == id) return r;
  }
  return nullptr;
}

inline std::size_t count_checks(const std::vector<Json>& records, const std::string& id) {
  std::size_t n = 0;
  for (const auto& r : records) {
    if (r.value("kind", "") == "check" && r.value("check", "") == id) ++n;
  }
  return n;
}

// A scripted MCP client: initialize, initialized, tools/call id 1; answers server pings
// as told; closes the connection once the call's result arrives (or after `close_after`
// messages, for failure injection).
struct FakeClient {
  enum class Pong { Correct, Error, None, StringId, Twice, NonEmpty, Rounded, Late };

  FakeChannel& ch;
  Pong pong = Pong::Correct;
  std::size_t close_after = std::numeric_limits<std::size_t>::max();
  double late_ms = 0;               // Pong::Late: pong arrives this late
  bool next_request_first = false;  // Pong::Late: a tools/list arrives just before the pong
  std::string skip_id;              // never answer the ping with this id
  bool close_on_result = true;
  enum class Initialized { First, AfterTheCall, Never };
  Initialized initialized = Initialized::First;
  std::size_t written = 0;
  std::vector<Json> results;
  std::string version = "2025-06-18";  // what initialize offers
  double initialize_delay_ms = 0;      // initialize arrives this late (a slow start)

  explicit FakeClient(FakeChannel& channel) : ch(channel) {
    ch.on_frame = [this](const Json& f) { on_frame(f); };
  }

  void start() {
    if (close_after == 0) {
      ch.client_close();
      return;
    }
    auto initialize = Json::parse(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"fake","version":"1"}}})");
    initialize["params"]["protocolVersion"] = version;
    write(initialize, initialize_delay_ms);
  }

  void write(const Json& message, double delay_ms = 0) {
    if (written >= close_after) return;
    ch.client_send(message, delay_ms);
    if (++written == close_after) ch.client_close();
  }

  void on_frame(const Json& f) {
    if (f.contains("method") && f["method"] == "ping" && f.contains("id")) {
      answer_ping(f);
      return;
    }
    if (!f.contains("id") || f.contains("method")) return;
    if (f["id"] == Json(0) && f.contains("result")) {
      const auto notification =
          Json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
      if (initialized == Initialized::First) write(notification);
      write(Json::parse(
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"nonce-1"}}})"));
      if (initialized == Initialized::AfterTheCall) write(notification);
    } else if (f["id"] == Json(1) || f["id"] == Json(2)) {
      results.push_back(f);
      if (close_on_result) ch.client_close();
    }
  }

  void answer_ping(const Json& ping) {
    const auto& id = ping["id"];
    if (!skip_id.empty() && id == Json(skip_id)) return;
    const Json ok{{"jsonrpc", "2.0"}, {"id", id}, {"result", Json::object()}};
    switch (pong) {
      case Pong::Correct:
        write(ok);
        break;
      case Pong::Error:
        write(Json{{"jsonrpc", "2.0"},
                   {"id", id},
                   {"error", {{"code", -32601}, {"message", "Method not found"}}}});
        break;
      case Pong::None:
        break;
      case Pong::StringId:
        write(Json{{"jsonrpc", "2.0"}, {"id", value_text(id)}, {"result", Json::object()}});
        break;
      case Pong::Twice:
        write(ok);
        write(ok);
        break;
      case Pong::NonEmpty:
        write(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"pong", true}}}});
        break;
      case Pong::Rounded:
        write(Json{{"jsonrpc", "2.0"}, {"id", id.get<double>()}, {"result", Json::object()}});
        break;
      case Pong::Late:
        if (next_request_first) {
          write(Json::parse(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"), late_ms - 5);
        }
        write(ok, late_ms);
        break;
    }
  }
};

inline Json fixture_script(const std::string& id,
                           const std::map<std::string, double>& overrides = {}) {
  const auto s =
      load_scenario(std::filesystem::path(MCP_FIXTURES_DIR) / "scenarios" / (id + ".json"), id,
                    fixture_defaults(), fixture_refs(), validate_script);
  return make_resolved(s.script, overrides);
}

// handshake, call captured, ping sent under "ping" (`ping` frame), pong expected, call answered.
inline Json ping_script(const Json& ping, const Json& expect_step = Json::object()) {
  Json expect = expect_step.empty()
                    ? Json{{"expect_response", "ping"}, {"check", check_def("pong")}}
                    : expect_step;
  return Json::array({Json{{"handshake", Json::object()}},
                      Json{{"expect", {{"method", "tools/call"}}},
                           {"as", "call"},
                           {"check", check_def("call-received")}},
                      Json{{"send", ping}, {"label", "ping"}}, expect,
                      Json{{"respond", "call"}, {"default", true}},
                      Json{{"serve_defaults", Json::object()}}});
}

struct RunResult {
  std::string reason;
  std::vector<Json> records;
};

inline RunResult run(const Json& resolved, FakeChannel& ch, FakeClient& client) {
  Transcript transcript;
  Interpreter interpreter(resolved, ch, transcript);
  client.start();
  RunResult r;
  r.reason = interpreter.run();
  r.records = transcript.records();
  return r;
}

inline bool sent_call_result(const FakeChannel& ch) {
  for (const auto& f : ch.sent) {
    if (f.contains("result") && f["id"] == Json(1) &&
        f["result"] == Json::parse(R"({"content":[{"type":"text","text":"nonce-1"}]})")) {
      return true;
    }
  }
  return false;
}

}  // namespace mcpping::test
