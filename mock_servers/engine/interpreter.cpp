#include "engine/interpreter.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "engine/default_server.hpp"
#include "engine/pattern.hpp"
#include "engine/template.hpp"

namespace mcpping {

LatencySummary summarize_latencies(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  auto rank = [&](double p) {
    const auto n = static_cast<double>(values.size());
    const auto index = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n))) - 1;
    return values[std::min(index, values.size() - 1)];
  };
  return {rank(0.50), rank(0.95), values.back()};
}

Verdict judge(Level level, Outcome outcome) {
  if (level == Level::Info) return Verdict::Informational;
  if (level == Level::May) return outcome == Outcome::Met ? Verdict::Pass : Verdict::Informational;
  switch (outcome) {
    case Outcome::Met:
      return Verdict::Pass;
    case Outcome::Degraded:
      return Verdict::NonStrict;
    case Outcome::Broken:
      return failure_verdict(level);
  }
  return Verdict::Fail;
}

namespace {

double round3(double ms) { return std::round(ms * 1000.0) / 1000.0; }

double elapsed_ms(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

Clock::duration from_ms(double ms) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

std::string method_of(const Json& message) {
  const auto it = message.find("method");
  return it != message.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool is_request(const Json& message) {
  return message.contains("method") && message.contains("id");
}

bool is_response(const Json& message) {
  return !message.contains("method") && (message.contains("result") || message.contains("error"));
}

// A short human description of a client message: `tools/call id 2`, `error -32601 "..."`.
std::string describe(const Json& message) {
  if (message.contains("method")) {
    auto text = method_of(message);
    if (text.empty()) text = "method " + safe_dump(message["method"]);
    if (message.contains("id")) text += " id " + safe_dump(message["id"]);
    return text;
  }
  return shorten(safe_dump(message), 200);
}

std::string describe_error(const Json& response) {
  const auto& error = response["error"];
  std::string text = "error";
  if (error.is_object()) {
    if (error.contains("code")) text += " " + safe_dump(error["code"]);
    if (error.contains("message")) text += " " + safe_dump(error["message"]);
  } else {
    text += " " + safe_dump(error);
  }
  return text;
}

std::string typed(const Json& value) {
  return safe_dump(value) + " (" + std::string(to_string(json_kind(value))) + ")";
}

// How a response id relates to a request id.
enum class IdMatch { None, Strict, Rounded, Loose };

IdMatch match_id(const Json& sent, const Json& got) {
  if (same_json(sent, got)) return IdMatch::Strict;
  constexpr std::uint64_t two53 = 1ULL << 53;
  const bool beyond = sent.is_number_unsigned() ? sent.get<std::uint64_t>() > two53
                      : sent.is_number_integer()
                          ? (sent.get<std::int64_t>() > static_cast<std::int64_t>(two53) ||
                             sent.get<std::int64_t>() < -static_cast<std::int64_t>(two53))
                          : false;
  if (beyond && got.is_number() && sent.get<double>() == got.get<double>()) {
    return IdMatch::Rounded;
  }
  const bool scalar = !sent.is_structured() && !got.is_structured() && !sent.is_null();
  if (scalar && (sent == got || value_text(sent) == value_text(got))) return IdMatch::Loose;
  return IdMatch::None;
}

std::string action_of(const Json& step) {
  static const char* const kActions[] = {"handshake",
                                         "expect",
                                         "send",
                                         "send_raw",
                                         "respond",
                                         "expect_response",
                                         "expect_error",
                                         "expect_no_response",
                                         "expect_none",
                                         "observe_client_pings",
                                         "pause",
                                         "stderr",
                                         "stderr_bytes",
                                         "close_stdin",
                                         "close_stdout",
                                         "serve_defaults",
                                         "await_get_stream",
                                         "fail_next_post",
                                         "expect_post"};
  for (const auto* action : kActions) {
    if (step.contains(action)) return action;
  }
  return "?";
}

bool valid_mcp_id(const Json& id) { return id.is_string() || id.is_number_integer(); }

CheckDef check_from(const Json& value) {
  CheckDef check;
  check.id = value.at("id").get<std::string>();
  check.level = parse_level(value.at("level").get<std::string>()).value_or(Level::Must);
  check.spec = value.at("spec").get<std::vector<std::string>>();
  return check;
}

std::string filler(std::size_t bytes) {
  static const std::string line =
      "mcp-ping-conformance stderr filler: the client must keep draining stderr.......\n";
  std::string out;
  out.reserve(bytes);
  while (out.size() < bytes) out.append(line, 0, std::min(line.size(), bytes - out.size()));
  if (!out.empty()) out.back() = '\n';
  return out;
}

// Writes to stderr on its own thread, in order, so a client that never drains stderr
// cannot block the script.
class StderrWorker {
 public:
  StderrWorker(Channel& channel, Transcript& transcript)
      : channel_(channel), transcript_(transcript) {}
  ~StderrWorker() { stop(); }

  // Stops at once, even in the middle of a write the client does not drain.
  void stop() {
    if (thread_.joinable()) {
      thread_.request_stop();
      cv_.notify_all();
      thread_.join();
    }
  }

  void enqueue(std::string bytes) {
    {
      const std::lock_guard lock(mutex_);
      queue_.push_back(std::move(bytes));
    }
    if (!thread_.joinable()) {
      thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
    }
    cv_.notify_all();
  }

 private:
  void loop(std::stop_token stop) {
    for (;;) {
      std::string bytes;
      {
        std::unique_lock lock(mutex_);
        if (!cv_.wait(lock, stop, [&] { return !queue_.empty(); })) return;
        bytes = std::move(queue_.front());
        queue_.pop_front();
      }
      const auto written = channel_.write_stderr(bytes, stop);
      transcript_.stderr_written(written, bytes.size());
    }
  }

  Channel& channel_;
  Transcript& transcript_;
  std::mutex mutex_;
  std::condition_variable_any cv_;
  std::deque<std::string> queue_;
  std::jthread thread_;
};

}  // namespace

struct Interpreter::Impl {
  struct Msg {
    Json json;
    Clock::time_point at;
    std::size_t requests_before = 0;  // client requests (not pings) that arrived before it
    Json meta;                        // HTTP facts (Incoming::meta); null on stdio
    std::string event;                // a transport event's name; json is null then
  };
  struct Sent {
    Json frame;
    Clock::time_point written;
    std::size_t requests_before = 0;
  };
  enum class Pump { Stopped, Deadline, Eof, CaseDeadline, Interrupted };
  enum class Step { Ok, Failed, Abort };
  // Sees each client message first. Returns true to stop pumping; a request or
  // notification it stops on is consumed (not answered, not kept in the inbox).
  using Claim = std::function<bool(const Msg&)>;

  Impl(const Json& resolved_, Channel& channel_, Transcript& transcript_)
      : resolved(resolved_),
        channel(channel_),
        transcript(transcript_),
        defaults(server_defaults_from(resolved_)),
        stderr_worker(channel_, transcript_) {
    for (const auto& [name, ms] : resolved.at("timeouts").items())
      timeouts[name] = ms.get<double>();
    line_cap = resolved.at("line_cap_bytes").get<std::size_t>();
  }

  const Json resolved;
  Channel& channel;
  Transcript& transcript;
  ServerDefaults defaults;
  TimeoutTable timeouts;
  std::size_t line_cap = 0;
  Clock::time_point case_deadline;

  Captures captures;
  std::deque<Msg> inbox;
  std::map<std::string, std::vector<Sent>> labels;
  std::vector<Sent> all_sent;
  std::vector<Msg> responses;
  std::size_t client_requests = 0;
  std::optional<Incoming> stash;  // arrived after the deadline of the pump that read it
  bool eof = false;
  bool serving = false;
  bool flood_recorded = false;
  bool invalid_recorded = false;
  bool output_closed = false;
  bool get_stream_open = false;     // HTTP: the client's listening stream, from transport events
  bool client_gone = false;         // HTTP: no session or stream left (Event meta "connected")
  std::set<std::string> responded;  // capture names the script answered
  Pump abort_reason = Pump::Deadline;
  std::size_t step_index = 0;
  std::string stop_reason;
  StderrWorker stderr_worker;

  double timeout_ms(const Json& step, const char* key, const char* fallback) const {
    const auto name = step.contains(key) ? step[key].get<std::string>() : std::string(fallback);
    return timeouts.at(name);
  }
  std::string timeout_text(const Json& step, const char* key, const char* fallback) const {
    const auto name = step.contains(key) ? step[key].get<std::string>() : std::string(fallback);
    return format_ms(timeouts.at(name)) + " ms";
  }

  void record(const CheckDef& check, Outcome outcome, std::string expected, std::string actual,
              std::vector<double> latency = {}, Json extra = Json::object()) {
    CheckRecord r;
    r.check = check;
    r.verdict = judge(check.level, outcome);
    r.expected = std::move(expected);
    r.actual = std::move(actual);
    r.latency_ms = std::move(latency);
    r.extra = std::move(extra);
    if (!r.extra.contains("step") && step_index < resolved["script"].size()) {
      r.extra["step"] = step_index;
    }
    transcript.check(r);
  }

  // ---- sending ----

  bool send_messages(const std::vector<Json>& frames, const SendOptions& options,
                     const std::string* label = nullptr) {
    std::vector<std::string> texts;
    texts.reserve(frames.size());
    for (const auto& frame : frames) texts.push_back(safe_dump(frame));
    const auto result = channel.send(texts, options);
    for (std::size_t i = 0; i < result.done.size(); ++i) {
      Json extra = Json::object();
      if (options.mode == WriteMode::Coalesced && frames.size() > 1)
        extra["coalesced"] = frames.size();
      if (label) extra["label"] = *label;
      if (i < result.streams.size() && !result.streams[i].empty())
        extra["stream"] = result.streams[i];
      transcript.frame(Direction::ServerToClient, texts[i], &frames[i], result.writes[i],
                       std::move(extra));
      Sent sent{frames[i], result.done[i], client_requests};
      all_sent.push_back(sent);
      if (label) labels[*label].push_back(std::move(sent));
    }
    if (!result.ok) {
      transcript.event("write failed after " + std::to_string(result.done.size()) + " of " +
                           std::to_string(frames.size()) + " frames: " + result.error,
                       {{"error", result.error}});
    }
    return result.ok;
  }

  bool send_one(const Json& frame, const std::string& route = {}) {
    SendOptions options;
    options.route = route;
    return send_messages({frame}, options);
  }

  // ---- receiving ----

  Incoming next(Clock::time_point deadline) {
    if (stash) {
      if (stash->at > deadline) {
        // Only a channel that stamps arrivals ahead (a test double) gets here early; a real
        // one stashed it because it came after the deadline, so this does not wait.
        std::this_thread::sleep_until(deadline);
        return Incoming{Incoming::Kind::Timeout, {}, 0, Clock::now()};
      }
      auto in = std::move(*stash);
      stash.reset();
      return in;
    }
    auto in = channel.receive(deadline);
    if (in.kind != Incoming::Kind::Timeout && in.at > deadline) {
      stash = std::move(in);
      return Incoming{Incoming::Kind::Timeout, {}, 0, Clock::now()};
    }
    return in;
  }

  void invalid_message(const std::string& text, const std::string& why) {
    if (invalid_recorded) return;
    invalid_recorded = true;
    record(CheckDef{"transport:valid-message", Level::Must, {"stdio.client-writes-only-messages"}},
           Outcome::Broken, "every line the client writes is a JSON-RPC message (a JSON object)",
           why + ": " + shorten(text, 200), {}, {{"implicit", true}});
  }

  // Handles one message line; true when `claim` stops on it.
  bool on_line(const Incoming& in, const Claim& claim) {
    auto json = Json::parse(in.text, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
      if (in.text.find_first_not_of(" \t\r") == std::string::npos) {
        transcript.raw(Direction::ClientToServer, in.text, {}, {{"note", "blank line"}});
        return false;
      }
      transcript.raw(Direction::ClientToServer, in.text);
      invalid_message(in.text, json.is_discarded() ? "a line that is not JSON"
                                                   : std::string("a JSON ") +
                                                         std::string(to_string(json_kind(json))) +
                                                         ", not an object");
      return false;
    }
    // `t` is when the frame was recorded; `arrived` when it was read from the client, the
    // time latencies are measured to (they differ when the server is busy, e.g. in a burst).
    transcript.frame(Direction::ClientToServer, in.text, &json, 1,
                     {{"arrived", std::round(transcript.ms(in.at) * 1000.0) / 1000.0}});
    Msg msg{std::move(json), in.at, client_requests, in.meta, {}};
    const auto& j = msg.json;
    if (j.contains("method")) {
      const auto method = method_of(j);
      if (is_request(j) && method != "ping") ++client_requests;
      if (claim && claim(msg)) return true;
      if (is_request(j) && method == "ping") {
        send_one(make_result(j["id"], Json::object()));
      } else if (serving) {
        if (auto answer = default_answer(j, defaults)) send_one(*answer);
      } else {
        inbox.push_back(std::move(msg));
      }
      return false;
    }
    if (is_response(j)) {
      responses.push_back(msg);
      return claim && claim(msg);
    }
    invalid_message(in.text,
                    "a JSON object that is neither a request, a notification nor a response");
    return false;
  }

  // Processes what the client does until `claim` stops, the deadline, end of input, or the
  // case deadline.
  Pump pump(Clock::time_point deadline, const Claim& claim) {
    for (;;) {
      if (eof) return Pump::Eof;
      const auto limit = std::min(deadline, case_deadline);
      auto in = next(limit);
      switch (in.kind) {
        case Incoming::Kind::Line:
          if (on_line(in, claim)) return Pump::Stopped;
          break;
        case Incoming::Kind::Overflow:
          transcript.raw(Direction::ClientToServer, in.text, in.bytes,
                         {{"note", "line longer than the cap; head kept, rest discarded"}});
          if (!flood_recorded) {
            flood_recorded = true;
            record(CheckDef{"transport:line-too-long", Level::Must, {"stdio.newline-delimited"}},
                   Outcome::Broken,
                   "every client message on one line of at most " + std::to_string(line_cap) +
                       " bytes",
                   "a line passed " + std::to_string(line_cap) +
                       " bytes without a newline; head: " + shorten(in.text, 120),
                   {}, {{"implicit", true}});
          }
          break;
        case Incoming::Kind::OverflowEnd:
          transcript.event(
              "the over-long client line ended after " + std::to_string(in.bytes) + " bytes",
              {{"bytes", in.bytes}});
          break;
        case Incoming::Kind::Unterminated:
          transcript.raw(Direction::ClientToServer, in.text, {},
                         {{"note", "input ended inside a line (no newline)"}});
          break;
        case Incoming::Kind::Eof:
          eof = true;
          transcript.event("end of input: the client closed the connection");
          return Pump::Eof;
        case Incoming::Kind::Interrupted:
          return Pump::Interrupted;
        case Incoming::Kind::Event: {
          // The host has recorded it; the script sees it only when a step waits for it.
          if (in.text == "get-stream-opened") get_stream_open = true;
          if (in.text == "get-stream-closed") get_stream_open = false;
          if (in.meta.is_object() && in.meta.contains("connected"))
            client_gone = !in.meta["connected"].get<bool>();
          if (serving && client_gone) {
            eof = true;
            transcript.event("the client ended its session: nothing is left to serve");
            return Pump::Eof;
          }
          if (claim && claim(Msg{Json(), in.at, client_requests, in.meta, in.text}))
            return Pump::Stopped;
          break;
        }
        case Incoming::Kind::Timeout:
          if (Clock::now() >= case_deadline) return Pump::CaseDeadline;
          if (Clock::now() >= deadline) return Pump::Deadline;
          break;
      }
    }
  }

  // Waits for a client request or notification matching `pattern`: first in the inbox,
  // then as it arrives.
  std::optional<Msg> await_message(const Json& pattern, Clock::time_point deadline, Pump& why) {
    for (auto it = inbox.begin(); it != inbox.end(); ++it) {
      if (matches(pattern, it->json, captures)) {
        auto msg = std::move(*it);
        inbox.erase(it);
        return msg;
      }
    }
    std::optional<Msg> found;
    why = pump(deadline, [&](const Msg& m) {
      if (!is_response(m.json) && matches(pattern, m.json, captures)) {
        found = m;
        return true;
      }
      return false;
    });
    return found;
  }

  std::string no_message_text(Pump why, double within_ms, Clock::time_point since) {
    switch (why) {
      case Pump::Eof:
        return "the client closed the connection after " +
               format_ms(elapsed_ms(since, Clock::now())) + " ms";
      case Pump::CaseDeadline:
        return "the case deadline passed after " + format_ms(elapsed_ms(since, Clock::now())) +
               " ms";
      case Pump::Interrupted:
        return "interrupted";
      default:
        break;
    }
    std::string text = "nothing matching within " + format_ms(within_ms) + " ms";
    if (!inbox.empty()) {
      text += " (waiting unmatched:";
      std::size_t shown = 0;
      for (const auto& m : inbox) {
        if (shown++ == 3) {
          text += " ...";
          break;
        }
        text += " " + describe(m.json) + ";";
      }
      text += ")";
    }
    return text;
  }

  Step after_wait(Pump why) {
    if (why == Pump::CaseDeadline || why == Pump::Interrupted) {
      abort_reason = why;
      return Step::Abort;
    }
    return Step::Failed;
  }

  // ---- steps ----

  Step do_handshake() {
    const auto check = handshake_check();
    const auto within = timeouts.at("expect_ms");
    const auto expected = "initialize request, then notifications/initialized, each within " +
                          format_ms(within) + " ms";
    const auto t0 = Clock::now();
    Pump why = Pump::Deadline;
    auto init = await_message(Json{{"method", "initialize"}, {"id", {{"$any", true}}}},
                              t0 + from_ms(within), why);
    if (!init) {
      record(check, Outcome::Broken, expected,
             "no initialize: " + no_message_text(why, within, t0));
      stop_reason = "no initialize request";
      return after_wait(why);
    }
    captures["initialize"] = init->json;
    responded.insert("initialize");
    const auto init_ms = std::max(0.0, elapsed_ms(t0, init->at));
    const auto result = initialize_result(init->json, defaults);
    if (!send_one(make_result(init->json["id"], result))) {
      record(check, Outcome::Broken, expected, "the initialize response could not be written");
      stop_reason = "write failed";
      return Step::Failed;
    }
    const auto t1 = Clock::now();
    auto initialized =
        await_message(Json{{"method", "notifications/initialized"}, {"id", {{"$absent", true}}}},
                      t1 + from_ms(within), why);
    auto offered = init->json.contains("params") && init->json["params"].is_object() &&
                           init->json["params"].contains("protocolVersion")
                       ? safe_dump(init->json["params"]["protocolVersion"])
                       : std::string("none");
    const auto init_text =
        "initialize (protocolVersion " + offered + ") after " + format_ms(init_ms) + " ms";
    if (!initialized) {
      record(check, Outcome::Broken, expected,
             init_text + "; no notifications/initialized: " + no_message_text(why, within, t1));
      stop_reason = "no notifications/initialized";
      return after_wait(why);
    }
    record(check, Outcome::Met, expected,
           init_text + "; notifications/initialized " +
               format_ms(std::max(0.0, elapsed_ms(t1, initialized->at))) +
               " ms after the response");
    return Step::Ok;
  }

  Step do_expect(const Json& step) {
    const auto check = check_from(step["check"]);
    const auto within = timeout_ms(step, "within", "expect_ms");
    const auto& pattern = step["expect"];
    const auto expected =
        "a client message matching " + safe_dump(pattern) + " within " + format_ms(within) + " ms";
    const auto t0 = Clock::now();
    Pump why = Pump::Deadline;
    auto msg = await_message(pattern, t0 + from_ms(within), why);
    if (!msg) {
      record(check, Outcome::Broken, expected, no_message_text(why, within, t0));
      // An INFO or MAY check records what happened; its absence is no reason to stop.
      if ((check.level == Level::Info || check.level == Level::May) && why == Pump::Deadline) {
        return Step::Ok;
      }
      stop_reason = "expected message did not arrive";
      return after_wait(why);
    }
    if (step.contains("as")) captures[step["as"].get<std::string>()] = msg->json;
    const auto waited = std::max(0.0, elapsed_ms(t0, msg->at));
    record(check, Outcome::Met, expected,
           describe(msg->json) + " after " + format_ms(waited) + " ms");
    return Step::Ok;
  }

  // The step's "on" as the host resolves it: "post:NAME" names a capture, the host knows
  // the POST by the JSON-RPC id of the request it carried.
  std::optional<std::string> route_of(const Json& step) {
    const auto on = step.value("on", std::string());
    if (on.rfind("post:", 0) != 0) return on;
    const auto it = captures.find(on.substr(5));
    if (it == captures.end() || !it->second.contains("id")) {
      transcript.event("cannot route to \"" + on + "\": no captured request with an id");
      stop_reason = "bad route";
      return std::nullopt;
    }
    return "post:" + safe_dump(it->second["id"]);
  }

  static SseFraming sse_of(const Json& step) {
    SseFraming sse;
    if (!step.contains("sse")) return sse;
    const auto& o = step["sse"];
    if (o.contains("event")) sse.event = o["event"].get<std::string>();
    if (o.contains("id")) sse.id = o["id"].get<std::string>();
    if (o.contains("retry")) sse.retry = o["retry"].get<std::int64_t>();
    sse.line_end = o.value("line_end", std::string("\n"));
    sse.multiline = o.value("multiline", false);
    sse.prefix = o.value("prefix", std::string());
    return sse;
  }

  Step do_send(const Json& step) {
    const auto& arg = step["send"];
    const std::vector<Json> templates =
        arg.is_array() ? arg.get<std::vector<Json>>() : std::vector<Json>{arg};
    const auto repeat = step.value("repeat", std::size_t{1});
    std::vector<Json> frames;
    frames.reserve(templates.size() * repeat);
    try {
      for (std::size_t i = 0; i < repeat; ++i) {
        for (const auto& t : templates) {
          frames.push_back(
              instantiate(t, captures, step.contains("repeat") ? std::optional(i) : std::nullopt));
        }
      }
    } catch (const TemplateError& e) {
      transcript.event(std::string("cannot build the frame: ") + e.what());
      stop_reason = "template error";
      return Step::Failed;
    }
    SendOptions options;
    const auto mode = step.value("write", std::string("lines"));
    options.mode = mode == "coalesced" ? WriteMode::Coalesced
                   : mode == "chopped" ? WriteMode::Chopped
                                       : WriteMode::Lines;
    options.chunk = step.value("chunk", std::size_t{1});
    const auto route = route_of(step);
    if (!route) return Step::Failed;
    options.route = *route;
    options.sse = sse_of(step);
    std::optional<std::string> label;
    if (step.contains("label")) label = step["label"].get<std::string>();
    if (!send_messages(frames, options, label ? &*label : nullptr)) {
      stop_reason = "write failed";
      return Step::Failed;
    }
    return Step::Ok;
  }

  Step do_send_raw(const Json& step) {
    const auto bytes = step["send_raw"].get<std::string>();
    const auto route = route_of(step);
    if (!route) return Step::Failed;
    const auto result = channel.send_raw(bytes, step.value("chunk", std::size_t{0}), *route);
    Json extra = Json::object();
    if (!result.writes.empty() && result.writes.front() != 1)
      extra["writes"] = result.writes.front();
    if (!result.streams.empty() && !result.streams.front().empty())
      extra["stream"] = result.streams.front();
    transcript.raw(Direction::ServerToClient, bytes, {}, std::move(extra));
    if (!result.ok) {
      transcript.event("write failed: " + result.error, {{"error", result.error}});
      stop_reason = "write failed";
      return Step::Failed;
    }
    return Step::Ok;
  }

  Step do_respond(const Json& step) {
    const auto name = step["respond"].get<std::string>();
    const auto& request = captures.at(name);
    if (!request.contains("id")) {
      transcript.event("cannot respond to \"" + name + "\": the captured message has no id");
      stop_reason = "respond to a notification";
      return Step::Failed;
    }
    Json frame;
    try {
      if (step.contains("default")) {
        auto answer = default_answer(request, defaults);
        if (!answer) {
          transcript.event("the default server has no answer for \"" + name + "\"");
          stop_reason = "no default answer";
          return Step::Failed;
        }
        frame = std::move(*answer);
      } else if (step.contains("result")) {
        frame = make_result(request["id"], instantiate(step["result"], captures));
      } else {
        frame = Json{{"jsonrpc", "2.0"},
                     {"id", request["id"]},
                     {"error", instantiate(step["error"], captures)}};
      }
    } catch (const TemplateError& e) {
      transcript.event(std::string("cannot build the response: ") + e.what());
      stop_reason = "template error";
      return Step::Failed;
    }
    const auto route = route_of(step);
    if (!route) return Step::Failed;
    responded.insert(name);
    if (!send_one(frame, *route)) {
      stop_reason = "write failed";
      return Step::Failed;
    }
    return Step::Ok;
  }

  // Whether `resp` answers `req` for expect_no_response: by id, or, for a request without
  // a usable id, an error with a null/absent id or a response to no id the server sent.
  bool attributed(const Sent& req, const Json& resp) const {
    const bool req_has_id = req.frame.contains("id");
    const bool resp_has_id = resp.contains("id") && !resp["id"].is_null();
    if (req_has_id && resp.contains("id") &&
        match_id(req.frame["id"], resp["id"]) != IdMatch::None) {
      return true;
    }
    if (req_has_id && valid_mcp_id(req.frame["id"])) return false;
    if (!resp_has_id) return true;
    for (const auto& other : all_sent) {
      if (other.frame.contains("id") && match_id(other.frame["id"], resp["id"]) != IdMatch::None)
        return false;
    }
    return true;
  }

  Step do_expect_response(const Json& step) {
    const auto check = check_from(step["check"]);
    const bool error_wanted = step.contains("expect_error");
    const auto label = step[error_wanted ? "expect_error" : "expect_response"].get<std::string>();
    const auto want_code = error_wanted ? step["code"].get<std::int64_t>() : 0;
    const auto within = timeout_ms(step, "within", "pong_cap_ms");
    std::optional<double> late;
    if (step.contains("late_within")) late = timeout_ms(step, "late_within", "late_pong_ms");
    std::vector<Sent> requests;
    for (const auto& sent : labels[label]) {
      if (sent.frame.contains("id")) requests.push_back(sent);
    }
    const Json wanted =
        error_wanted ? Json{{"error", {{"code", want_code}}}} : Json{{"result", Json::object()}};
    std::string expected;
    if (requests.size() == 1) {
      auto shape = wanted;
      shape["id"] = requests[0].frame["id"];
      expected = (error_wanted ? "error response " : "response ") + safe_dump(shape) + " within " +
                 format_ms(within) + " ms";
    } else {
      expected = "one response " + safe_dump(wanted) + " with the same id to each of " +
                 std::to_string(requests.size()) + " requests" +
                 (requests.empty() ? std::string()
                                   : " (ids " + safe_dump(requests.front().frame["id"]) + " .. " +
                                         safe_dump(requests.back().frame["id"]) + ")") +
                 ", each within " + format_ms(within) + " ms";
    }
    if (late)
      expected +=
          " (NON_STRICT if only at the client's next request, within " + format_ms(*late) + " ms)";
    if (error_wanted) expected += " (another error code: NON_STRICT)";
    if (requests.empty()) {
      record(check, Outcome::Broken, expected,
             "nothing was sent under \"" + label + "\" with an id");
      return Step::Ok;
    }

    // Which requests have an answer so far, updated per response: a burst of N pings stays
    // O(N) per response instead of rescanning every response for every request.
    std::vector<bool> has_answer(requests.size(), false);
    std::size_t answered_count = 0;
    const auto note_response = [&](const Msg& r) {
      if (!r.json.contains("id")) return;
      for (std::size_t i = 0; i < requests.size(); ++i) {
        if (!has_answer[i] && r.at >= requests[i].written &&
            match_id(requests[i].frame["id"], r.json["id"]) != IdMatch::None) {
          has_answer[i] = true;
          ++answered_count;
        }
      }
    };
    for (const auto& r : responses) note_response(r);
    auto all_answered = [&] { return answered_count == requests.size(); };
    const Claim until_all = [&](const Msg& m) {
      if (!is_response(m.json)) return false;
      note_response(m);
      return all_answered();
    };
    auto last_written = requests.front().written;
    for (const auto& r : requests) last_written = std::max(last_written, r.written);

    Pump why = Pump::Stopped;
    if (!all_answered()) why = pump(last_written + from_ms(within), until_all);
    if (late && !all_answered() && why == Pump::Deadline)
      why = pump(last_written + from_ms(*late), until_all);
    if (all_answered() && (why == Pump::Stopped || why == Pump::Deadline)) {
      // A short grace so that a duplicate sent right behind the first answer is seen.
      why = pump(Clock::now() + from_ms(timeouts.at("settle_ms")), nullptr);
    }

    Outcome outcome = Outcome::Met;
    std::vector<double> latencies;
    std::vector<std::string> problems;
    std::string single_actual;
    for (const auto& req : requests) {
      const auto& id = req.frame["id"];
      std::vector<std::pair<const Msg*, IdMatch>> got;
      for (const auto& r : responses) {
        // A response from before the request was written cannot answer it.
        if (!r.json.contains("id") || r.at < req.written) continue;
        const auto m = match_id(id, r.json["id"]);
        if (m != IdMatch::None) got.emplace_back(&r, m);
      }
      Outcome o = Outcome::Met;
      std::string text;
      if (got.empty()) {
        o = Outcome::Broken;
        text = "nothing within " + format_ms(late ? *late : within) + " ms";
      } else {
        const auto& [first, how] = got.front();
        const auto& r = first->json;
        const auto after = elapsed_ms(req.written, first->at);
        std::vector<std::string> notes;
        if (how == IdMatch::Loose) {
          o = Outcome::Broken;
          notes.push_back("id type changed: sent " + typed(id) + ", got " + typed(r["id"]));
        } else if (how == IdMatch::Rounded) {
          o = Outcome::Degraded;
          notes.push_back("id came back rounded: sent " + safe_dump(id) + ", got " +
                          safe_dump(r["id"]) + " (beyond 2^53, RFC 8259 section 6)");
        }
        if (error_wanted) {
          if (!r.contains("error") || !r["error"].is_object()) {
            o = Outcome::Broken;
            notes.push_back("not an error response");
          } else if (!same_json(r["error"].value("code", Json()), Json(want_code))) {
            o = std::max(o, Outcome::Degraded);
            notes.push_back("error code " + safe_dump(r["error"].value("code", Json())) +
                            ", expected " + std::to_string(want_code));
          }
        } else if (r.contains("error")) {
          o = Outcome::Broken;
          notes.push_back(describe_error(r));
        } else if (!r["result"].is_object()) {
          o = Outcome::Broken;
          notes.push_back("result is not an object: " + shorten(safe_dump(r["result"]), 120));
        } else {
          Json others = r["result"];
          others.erase("_meta");
          if (!others.empty()) {
            o = std::max(o, Outcome::Degraded);
            notes.push_back("result is not empty: " + shorten(safe_dump(r["result"]), 120));
          }
          if (how == IdMatch::Strict || how == IdMatch::Rounded) latencies.push_back(round3(after));
        }
        if (after > within) {
          if (late && after <= *late && first->requests_before > req.requests_before) {
            o = std::max(o, Outcome::Degraded);
            notes.push_back("answered only at the client's next request, not while idle");
          } else {
            o = Outcome::Broken;
            notes.push_back("too late (cap " + format_ms(within) + " ms)");
          }
        }
        if (got.size() > 1) {
          o = Outcome::Broken;
          notes.push_back(std::to_string(got.size()) + " responses to the same request");
        }
        text = shorten(safe_dump(r), 160) + " after " + format_ms(after) + " ms";
        for (const auto& n : notes) text += "; " + n;
      }
      outcome = std::max(outcome, o);
      if (requests.size() == 1) {
        single_actual = text;
      } else if (o != Outcome::Met) {
        problems.push_back("id " + safe_dump(id) + ": " + text);
      }
    }

    std::string actual;
    Json extra = Json::object();
    if (requests.size() == 1) {
      actual = single_actual;
    } else {
      const std::size_t unanswered = requests.size() - answered_count;
      actual = std::to_string(requests.size() - unanswered) + "/" +
               std::to_string(requests.size()) + " answered";
      if (problems.empty()) actual += ", each exactly once";
      const auto summary = summarize_latencies(latencies);
      if (!latencies.empty()) {
        actual += "; latency p50 " + format_ms(summary.p50) + " ms, p95 " + format_ms(summary.p95) +
                  " ms, max " + format_ms(summary.max) + " ms";
        extra["latency"] = {{"p50", summary.p50}, {"p95", summary.p95}, {"max", summary.max}};
      }
      if (!problems.empty()) {
        actual += "; " + std::to_string(problems.size()) + " problem(s): ";
        for (std::size_t i = 0; i < problems.size() && i < 5; ++i)
          actual += (i ? " | " : "") + problems[i];
        if (problems.size() > 5) actual += " | ...";
      }
    }
    if (error_wanted) latencies.clear();  // latency is recorded for pongs only
    record(check, outcome, expected, actual, latencies, std::move(extra));
    if (why == Pump::CaseDeadline || why == Pump::Interrupted) return after_wait(why);
    return Step::Ok;
  }

  Step do_expect_no_response(const Json& step) {
    const auto check = check_from(step["check"]);
    const auto label = step["expect_no_response"].get<std::string>();
    const auto window = timeout_ms(step, "window", "quiet_ms");
    const auto forbid_any = step.value("forbid", std::string("success")) == "any";
    const auto t0 = Clock::now();
    const auto end = t0 + from_ms(window);
    const auto why = pump(end, nullptr);
    const auto& requests = labels[label];
    std::vector<std::pair<const Msg*, const Sent*>> seen;
    for (const auto& r : responses) {
      if (r.at > end) continue;
      for (const auto& req : requests) {
        if (r.at >= req.written && attributed(req, r.json)) {
          seen.emplace_back(&r, &req);
          break;
        }
      }
    }
    const std::string what = forbid_any ? "no response at all" : "no success response";
    const auto expected = what + " to " + std::to_string(requests.size()) + " frame(s) sent as \"" +
                          label + "\" within " + format_ms(window) + " ms";
    std::vector<std::string> violations, errors;
    for (const auto& [r, req] : seen) {
      const auto text = (r->json.contains("error")
                             ? describe_error(r->json) + " with id " +
                                   (r->json.contains("id") ? safe_dump(r->json["id"]) : "absent")
                             : shorten(safe_dump(r->json), 160)) +
                        " after " + format_ms(elapsed_ms(req->written, r->at)) + " ms";
      if (r->json.contains("error")) errors.push_back(text);
      if (forbid_any || !r->json.contains("error")) violations.push_back(text);
    }
    auto joined = [](const std::vector<std::string>& items) {
      std::string out;
      for (std::size_t i = 0; i < items.size() && i < 5; ++i) out += (i ? " | " : "") + items[i];
      if (items.size() > 5) out += " | ...";
      return out;
    };
    const auto window_text =
        "within " + format_ms(elapsed_ms(t0, std::min(Clock::now(), end))) + " ms";
    if (violations.empty()) {
      record(check, Outcome::Met, expected,
             "none " + window_text +
                 (errors.empty() ? std::string() : " (seen: " + joined(errors) + ")"));
    } else {
      record(check, Outcome::Broken, expected, joined(violations));
    }
    if (step.contains("info_check")) {
      const auto info = check_from(step["info_check"]);
      // Silence meets it; an error response is recorded with its code (INFORMATIONAL for a MAY
      // or INFO check): both are acceptable answers to a malformed request.
      record(info, errors.empty() ? Outcome::Met : Outcome::Broken,
             "the error response, if any, and its code",
             errors.empty() ? "no error response " + window_text : joined(errors));
    }
    if (why == Pump::CaseDeadline || why == Pump::Interrupted) return after_wait(why);
    return Step::Ok;
  }

  Step do_expect_none(const Json& step) {
    const auto check = check_from(step["check"]);
    const auto& pattern = step["expect_none"];
    const auto window = timeout_ms(step, "window", "quiet_ms");
    const auto t0 = Clock::now();
    std::vector<std::string> seen;
    const auto why = pump(t0 + from_ms(window), [&](const Msg& m) {
      if (matches(pattern, m.json, captures)) {
        seen.push_back(describe(m.json) + " after " + format_ms(elapsed_ms(t0, m.at)) + " ms");
      }
      return false;
    });
    const auto expected =
        "no client message matching " + safe_dump(pattern) + " within " + format_ms(window) + " ms";
    if (seen.empty()) {
      record(check, Outcome::Met, expected,
             "none within " + format_ms(elapsed_ms(t0, Clock::now())) + " ms");
    } else {
      std::string actual = std::to_string(seen.size()) + " matching: " + seen.front();
      if (seen.size() > 1) actual += " | ...";
      record(check, Outcome::Broken, expected, actual);
    }
    if (why == Pump::CaseDeadline || why == Pump::Interrupted) return after_wait(why);
    return Step::Ok;
  }

  Step do_observe_client_pings(const Json& step) {
    const auto check = check_from(step["check"]);
    const auto window = timeout_ms(step, "window", "observe_ms");
    const auto t0 = Clock::now();
    const auto end = t0 + from_ms(window);
    std::vector<double> at;
    const Claim take_pings = [&](const Msg& m) {
      if (!is_request(m.json) || method_of(m.json) != "ping") return false;
      at.push_back(round3(elapsed_ms(t0, m.at)));
      send_one(make_result(m.json["id"], Json::object()));
      return true;
    };
    Pump why = Pump::Stopped;
    while (why == Pump::Stopped) why = pump(end, take_pings);
    std::string actual =
        std::to_string(at.size()) + " client ping(s) in " + format_ms(window) + " ms";
    std::vector<double> intervals;
    for (std::size_t i = 1; i < at.size(); ++i) intervals.push_back(round3(at[i] - at[i - 1]));
    if (!at.empty()) {
      actual += ", at";
      for (auto t : at) actual += " " + format_ms(t);
      actual += " ms";
    }
    if (!intervals.empty()) {
      actual += "; intervals";
      for (auto d : intervals) actual += " " + format_ms(d);
      actual += " ms";
    }
    record(check, at.empty() ? Outcome::Broken : Outcome::Met,
           "client pings while the server stays quiet for " + format_ms(window) + " ms", actual, {},
           {{"pings_at_ms", at}, {"intervals_ms", intervals}});
    if (why == Pump::CaseDeadline || why == Pump::Interrupted) return after_wait(why);
    return Step::Ok;
  }

  // The client MAY open the listening stream: if it does not, the case cannot be judged on
  // this client (UNSUPPORTED), which is no failure.
  Step do_await_get_stream(const Json& step) {
    const auto within = timeout_ms(step, "within", "expect_ms");
    const auto t0 = Clock::now();
    Pump why = Pump::Stopped;
    if (!get_stream_open) {
      why =
          pump(t0 + from_ms(within), [&](const Msg& m) { return m.event == "get-stream-opened"; });
    }
    if (get_stream_open) {
      transcript.event("the client's GET stream is open (waited " +
                       format_ms(elapsed_ms(t0, Clock::now())) + " ms)");
      return Step::Ok;
    }
    if (why == Pump::CaseDeadline || why == Pump::Interrupted) return after_wait(why);
    transcript.unsupported("the client did not open the GET listening stream within " +
                           format_ms(within) + " ms (clients MAY open it)");
    stop_reason = "no GET stream: the case is unsupported for this client";
    return Step::Failed;
  }

  Step do_fail_next_post(const Json& step) {
    PostFault fault;
    fault.pattern = step["fail_next_post"];
    fault.captures = captures;
    fault.with = step["with"].is_string() ? step["with"].get<std::string>()
                                          : std::to_string(step["with"].get<int>());
    if (!channel.arm_post_fault(fault)) {
      transcript.event("this transport has no POSTs to fail");
      stop_reason = "fail_next_post needs an HTTP transport";
      return Step::Failed;
    }
    transcript.event(
        "armed: the next client POST matching " + safe_dump(fault.pattern) + " gets " + fault.with,
        {{"fault", fault.with}});
    return Step::Ok;
  }

  // Matches the HTTP facts of the POSTs that carried the client's responses to a label.
  Step do_expect_post(const Json& step) {
    const auto check = check_from(step["check"]);
    const auto label = step["expect_post"].get<std::string>();
    const auto& pattern = step["http"];
    const auto within = timeout_ms(step, "within", "pong_cap_ms");
    std::vector<Sent> requests;
    for (const auto& sent : labels[label]) {
      if (sent.frame.contains("id")) requests.push_back(sent);
    }
    const auto expected = "the POST carrying the response to each request sent as \"" + label +
                          "\" matches " + safe_dump(pattern);
    auto response_to = [&](const Sent& req) -> const Msg* {
      for (const auto& r : responses) {
        if (r.json.contains("id") && r.at >= req.written &&
            match_id(req.frame["id"], r.json["id"]) != IdMatch::None)
          return &r;
      }
      return nullptr;
    };
    auto all_in = [&] {
      return std::all_of(requests.begin(), requests.end(),
                         [&](const Sent& r) { return response_to(r) != nullptr; });
    };
    Pump why = Pump::Stopped;
    if (!requests.empty() && !all_in()) {
      why = pump(Clock::now() + from_ms(within),
                 [&](const Msg& m) { return is_response(m.json) && all_in(); });
    }
    Outcome outcome = requests.empty() ? Outcome::Broken : Outcome::Met;
    std::string actual =
        requests.empty() ? "nothing was sent under \"" + label + "\" with an id" : std::string();
    for (const auto& req : requests) {
      const auto* r = response_to(req);
      std::string text;
      if (!r) {
        outcome = Outcome::Broken;
        text = "no response to id " + safe_dump(req.frame["id"]) + " within " + format_ms(within) +
               " ms";
      } else {
        std::string why_not;
        if (!matches(pattern, r->meta, captures, &why_not)) {
          outcome = Outcome::Broken;
          text = "id " + safe_dump(req.frame["id"]) + ": " + why_not + " in " +
                 shorten(safe_dump(r->meta), 240);
        } else if (requests.size() == 1) {
          text = shorten(safe_dump(r->meta), 240);
        }
      }
      if (!text.empty()) actual += (actual.empty() ? "" : " | ") + text;
    }
    if (actual.empty()) actual = std::to_string(requests.size()) + " POST(s), each matching";
    record(check, outcome, expected, actual);
    if (why == Pump::CaseDeadline || why == Pump::Interrupted) return after_wait(why);
    return Step::Ok;
  }

  Step do_pause(const Json& step) {
    const auto why =
        pump(Clock::now() + from_ms(timeouts.at(step["pause"].get<std::string>())), nullptr);
    if (why == Pump::CaseDeadline || why == Pump::Interrupted) return after_wait(why);
    return Step::Ok;
  }

  Step run_step(const Json& step) {
    if (step.contains("handshake")) return do_handshake();
    if (step.contains("expect")) return do_expect(step);
    if (step.contains("send")) return do_send(step);
    if (step.contains("send_raw")) return do_send_raw(step);
    if (step.contains("respond")) return do_respond(step);
    if (step.contains("expect_response") || step.contains("expect_error"))
      return do_expect_response(step);
    if (step.contains("expect_no_response")) return do_expect_no_response(step);
    if (step.contains("expect_none")) return do_expect_none(step);
    if (step.contains("observe_client_pings")) return do_observe_client_pings(step);
    if (step.contains("pause")) return do_pause(step);
    if (step.contains("await_get_stream")) return do_await_get_stream(step);
    if (step.contains("fail_next_post")) return do_fail_next_post(step);
    if (step.contains("expect_post")) return do_expect_post(step);
    if (step.contains("stderr")) {
      stderr_worker.enqueue(step["stderr"].get<std::string>());
      return Step::Ok;
    }
    if (step.contains("stderr_bytes")) {
      stderr_worker.enqueue(filler(step["stderr_bytes"].get<std::size_t>()));
      return Step::Ok;
    }
    if (step.contains("close_stdin")) {
      channel.close_input();
      transcript.event("closed the server's input: the client's writes now fail");
      return Step::Ok;
    }
    if (step.contains("close_stdout")) {
      channel.close_output();
      output_closed = true;
      transcript.event("closed the server's output: the client sees end of file");
      return Step::Ok;
    }
    return Step::Ok;  // serve_defaults: run() serves after the script anyway
  }

  // After a stop: the requests the script captured but will now never answer get the
  // default answer, so the client can finish cleanly.
  void answer_captured() {
    for (const auto& [name, msg] : captures) {
      if (responded.count(name) || !is_request(msg)) continue;
      responded.insert(name);
      if (auto answer = default_answer(msg, defaults)) send_one(*answer);
    }
  }

  std::string serve() {
    serving = true;
    if (client_gone) {
      transcript.event("the client ended its session before the script was done");
      return finish(Pump::Eof);
    }
    while (!inbox.empty()) {
      auto msg = std::move(inbox.front());
      inbox.pop_front();
      if (auto answer = default_answer(msg.json, defaults)) send_one(*answer);
    }
    return finish(pump(case_deadline, nullptr));
  }

  std::string finish(Pump why) {
    std::string reason = "eof";
    if (why == Pump::CaseDeadline || why == Pump::Deadline) {
      transcript.event("the case deadline (" + format_ms(timeouts.at("case_deadline_ms")) +
                       " ms) passed");
      reason = "deadline";
    } else if (why == Pump::Interrupted) {
      transcript.event("interrupted by the host");
      reason = "interrupted";
    }
    stderr_worker.stop();  // its `stderr` record comes before `end`
    transcript.end(reason);
    return reason;
  }

  std::string run() {
    const auto start = Clock::now();
    case_deadline = start + from_ms(timeouts.at("case_deadline_ms"));
    transcript.start(static_cast<long>(::getpid()), resolved["scenario"].get<std::string>(),
                     resolved["transport"].get<std::string>(),
                     resolved["revision"].get<std::string>());
    const auto& script = resolved["script"];
    for (step_index = 0; step_index < script.size(); ++step_index) {
      const auto& step = script[step_index];
      const auto result = run_step(step);
      if (result == Step::Abort) {
        transcript.event("script stopped at step " + std::to_string(step_index) + ": " +
                             (abort_reason == Pump::Interrupted ? "interrupted" : "case deadline"),
                         {{"step", step_index}});
        return finish(abort_reason);
      }
      if (result == Step::Failed) {
        transcript.event(
            "script stopped at step " + std::to_string(step_index) + " (" + action_of(step) +
                "): " + stop_reason +
                "; later checks are not reached; answering the default way from now on",
            {{"step", step_index}, {"stopped", true}});
        answer_captured();
        break;
      }
    }
    step_index = script.size();
    if (output_closed) return shut_down();
    return serve();
  }

  // A server that closed its output is shutting down (lifecycle: it "MAY initiate shutdown
  // by closing its output stream to the client and exiting"). It records what the client
  // still sends for a quiet window, then exits, so that a client watching the process rather
  // than end of file sees it go.
  std::string shut_down() {
    const auto why = pump(Clock::now() + from_ms(timeouts.at("quiet_ms")), nullptr);
    if (why == Pump::Interrupted || why == Pump::CaseDeadline) return finish(why);
    transcript.event("the script closed the server's output; the server exits");
    stderr_worker.stop();
    transcript.end("output closed");
    return "output closed";
  }
};

Interpreter::Interpreter(const Json& resolved, Channel& channel, Transcript& transcript)
    : impl_(std::make_unique<Impl>(resolved, channel, transcript)) {}

Interpreter::~Interpreter() = default;

std::string Interpreter::run() { return impl_->run(); }

}  // namespace mcpping
