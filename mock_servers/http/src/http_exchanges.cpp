#include "http_exchanges.hpp"

#include <algorithm>

#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "http_rules.hpp"
#include "sse_framing.hpp"

namespace mcpping {

struct HttpExchanges::Target {
  std::shared_ptr<Exchange> exchange;  // set when the frame goes to a POST
  std::shared_ptr<SseStream> stream;
  std::string name;
  std::string answers;    // the key of the POST's request the frame responds to, if any
  bool finishes = false;  // the frame is the POST's last response: its stream ends after it
  std::string error;      // no stream to send on
};

bool HttpExchanges::take_place() {
  const std::lock_guard lock(mutex_);
  if (open_streams_ >= options_.max_streams) return false;
  ++open_streams_;
  return true;
}

void HttpExchanges::free_place() {
  const std::lock_guard lock(mutex_);
  --open_streams_;
}

std::shared_ptr<Exchange> HttpExchanges::open(const std::vector<Json>& requests, bool initialize,
                                              bool batch, std::string& session) {
  auto ex = std::make_shared<Exchange>();
  ex->key = safe_dump(requests.front());
  for (const auto& id : requests) ex->open.insert(safe_dump(id));
  ex->initialize = initialize;
  const std::lock_guard lock(mutex_);
  if (initialize) session = sessions_.create();
  ex->session = session;
  // A batch's responses go on a stream, one event each ("The server MUST either return
  // Content-Type: text/event-stream ... or Content-Type: application/json").
  if (options_.post_always_sse || batch) decide_sse_locked(*ex);
  pending_.push_back(ex);
  return ex;
}

Exchange::Mode HttpExchanges::await_decided(const std::shared_ptr<Exchange>& ex) {
  std::unique_lock lock(mutex_);
  decided_.wait_until(lock, options_.deadline + std::chrono::seconds(3),
                      [&] { return ex->mode != Exchange::Mode::Undecided || stopping_; });
  if (ex->mode == Exchange::Mode::Undecided) pending_.remove(ex);
  if (ex->mode != Exchange::Mode::Sse) --open_streams_;
  return ex->mode;
}

void HttpExchanges::release_connection(const std::shared_ptr<Exchange>& ex) {
  const std::lock_guard lock(mutex_);
  --open_streams_;
  // Not ended: disconnected, and maybe resumed already on another connection.
  if (ex->stream->ended()) pending_.remove(ex);
}

void HttpExchanges::expect_legacy_initialize(const std::string& session, const std::string& key) {
  const std::lock_guard lock(mutex_);
  legacy_initialize_ = {session, key};
}

std::pair<std::shared_ptr<Exchange>, std::shared_ptr<SseStream>> HttpExchanges::resumable(
    const std::string& session, const std::string& last_event_id) {
  const std::lock_guard lock(mutex_);
  // Event ids are unique within a session ("globally unique across all streams within that
  // session"); should a script reuse one, the latest stream that wrote it wins.
  std::shared_ptr<Exchange> ex;
  for (const auto& e : pending_) {
    if (e->session == session && e->stream && e->stream->disconnected() &&
        e->stream->wrote_event(last_event_id))
      ex = e;
  }
  if (ex) return {ex, ex->stream};
  // "This mechanism applies regardless of how the original stream was initiated (via POST or
  // GET)": the listening stream the server disconnected resumes the same way.
  const auto& listening = sessions_.at(session).stream;
  if (listening && listening->disconnected() && listening->wrote_event(last_event_id))
    return {nullptr, listening};
  return {};
}

Json HttpExchanges::disconnected(const std::string& session) {
  const std::lock_guard lock(mutex_);
  auto names = Json::array();
  for (const auto& ex : pending_)
    if (ex->session == session && ex->stream && ex->stream->disconnected())
      names.push_back(ex->stream->name());
  return names;
}

bool HttpExchanges::delete_session(const std::string& session) {
  const std::lock_guard lock(mutex_);
  auto& s = sessions_.at(session);
  s.deleted = true;
  if (s.stream) s.stream->push({}, true);  // ends the GET stream cleanly
  // Nobody can resume these any more: they end like POSTs the client closed (a write waiting
  // on one fails at once).
  pending_.remove_if([&](const std::shared_ptr<Exchange>& ex) {
    if (ex->session != session || !ex->stream || !ex->stream->disconnected()) return false;
    ex->stream->stop();
    return true;
  });
  return sessions_.connected(options_.legacy);
}

void HttpExchanges::stop() {
  {
    const std::lock_guard lock(mutex_);
    if (std::exchange(stopping_, true)) return;
    sessions_.stop_streams();
    for (auto& ex : pending_)
      if (ex->stream) ex->stream->stop();
  }
  decided_.notify_all();
}

Clock::time_point HttpExchanges::write_limit() const {
  return std::min(Clock::now() + std::chrono::seconds(5),
                  options_.deadline + std::chrono::seconds(2));
}

void HttpExchanges::decide_sse_locked(Exchange& ex) {
  ex.mode = Exchange::Mode::Sse;
  ex.stream = std::make_shared<SseStream>("post:" + ex.key);
  decided_.notify_all();
}

std::shared_ptr<Exchange> HttpExchanges::unanswered_locked(const std::string& key) {
  for (auto& ex : pending_)
    if (!ex->answered && ex->open.count(key)) return ex;
  return nullptr;
}

HttpExchanges::Target HttpExchanges::route_locked(const Json& message, const std::string& route) {
  Target t;
  // On a listening stream (legacy: the SSE stream), or nowhere, for `error`.
  const auto listening = [&t](std::shared_ptr<SseStream> stream, const char* name,
                              const std::string& error) {
    t.stream = std::move(stream);
    t.name = name;
    if (!t.stream) t.error = error;
    return t;
  };
  const bool response = message.is_object() && is_routable_response(message);
  const auto key = response ? safe_dump(message["id"]) : std::string();
  if (options_.legacy) {
    const auto& [session, initialize] = legacy_initialize_;
    if (!initialize.empty() && key == initialize) {
      sessions_.note_initialize_result(session, message);
      legacy_initialize_ = {};
    }
    return listening(sessions_.legacy_stream(), "sse", "the client has no SSE stream open");
  }
  if (route == "get")
    return listening(sessions_.latest_get_stream(), "get", "the client has no GET stream open");
  std::shared_ptr<Exchange> ex;
  if (route.rfind("post:", 0) == 0) {
    ex = unanswered_locked(route.substr(5));
    if (!ex) {
      t.error = "the POST of request " + route.substr(5) + " has no open stream";
      return t;
    }
  } else if (response) {
    ex = unanswered_locked(key);
    if (!ex) {
      t.name = "none";  // nothing waits for it: recorded, not sent
      return t;
    }
  } else {
    for (auto it = pending_.rbegin(); it != pending_.rend() && !ex; ++it)
      if (!(*it)->answered) ex = *it;
  }
  if (!ex)
    return listening(sessions_.latest_get_stream(), "get",
                     "no stream to send on: no request is pending and no GET stream is open");
  t.exchange = ex;
  t.name = "post:" + ex->key;
  if (response && ex->open.count(key)) {
    t.answers = key;
    t.finishes = ex->open.size() == 1;
  }
  return t;
}

namespace {

// A frame of a send() and where it went: on `stream`, or on none (a POST's JSON body, `writes`
// 1, or not sent, 0).
struct PlannedFrame {
  std::shared_ptr<SseStream> stream;
  std::string name;
  std::uint64_t seq = 0;  // its last chunk, once pushed
  std::size_t writes = 1;
  std::string text;
  bool finishes = false;  // the stream ends after it
};

// Pushes the frames of one send() to their streams in order. Consecutive frames to one stream
// share the write mode's chunking (coalesced: one chunk), so they are pushed to it together.
void push_frames(std::vector<PlannedFrame>& plan, const SendOptions& options) {
  for (std::size_t start = 0, end = 0; start < plan.size(); start = end) {
    const auto stream = plan[start].stream;
    end = start + 1;
    if (!stream) continue;
    while (end < plan.size() && plan[end].stream == stream) ++end;
    std::vector<std::string> events;
    bool finish = false;
    for (auto j = start; j < end; ++j) {
      events.push_back(sse_event(plan[j].text, options.sse));
      finish = finish || plan[j].finishes;
    }
    const auto chunking = chunk_events(events, options.mode, options.chunk);
    const auto seqs = stream->push(chunking.chunks, finish);
    for (auto j = start; j < end; ++j) {
      plan[j].seq = seqs[chunking.last_chunk[j - start]];
      plan[j].writes = chunking.chunk_count[j - start];
    }
  }
}

// Waits (up to `limit`) for each planned frame to be written, and reports when it was.
SendResult await_writes(const std::vector<PlannedFrame>& plan, Clock::time_point limit,
                        Transcript& transcript, const std::string& what = "the frame was") {
  SendResult result;
  for (const auto& p : plan) {
    Clock::time_point at = Clock::now();
    if (p.stream) {
      const auto written = p.stream->wait_written(p.seq, limit);
      if (!written) {
        result.ok = false;
        result.error = "the " + p.name + " stream ended before " + what + " written";
        return result;
      }
      at = *written;
    } else if (p.name == "none") {
      transcript.event("no POST waits for this response: not sent");
    }
    result.writes.push_back(p.writes);
    result.done.push_back(at);
    result.streams.push_back(p.name);
  }
  return result;
}

}  // namespace

bool HttpExchanges::to_exchange_locked(Target& t, const Json& message, const std::string& text) {
  auto& ex = *t.exchange;
  if (!t.answers.empty()) ex.open.erase(t.answers);
  if (t.finishes) {
    ex.answered = true;
    if (ex.initialize) sessions_.note_initialize_result(ex.session, message);
  }
  if (ex.mode == Exchange::Mode::Undecided) {
    if (t.finishes) {  // the response comes first: a plain JSON body
      ex.mode = Exchange::Mode::Json;
      ex.json_body = text;
      decided_.notify_all();
      return false;
    }
    decide_sse_locked(ex);
  }
  t.stream = ex.stream;
  return true;
}

SendResult HttpExchanges::send(const std::vector<std::string>& frames, const SendOptions& options) {
  std::vector<PlannedFrame> plan;
  std::string error;
  {
    const std::lock_guard lock(mutex_);
    for (const auto& text : frames) {
      const auto message = Json::parse(text, nullptr, false);
      auto t = route_locked(message, options.route);
      if (!t.error.empty()) {
        error = t.error;
        break;
      }
      // No stream: the POST's JSON body, or a response nothing waits for (not sent).
      const bool json_body = t.exchange && !to_exchange_locked(t, message, text);
      plan.push_back({t.stream, t.name, 0, json_body || t.stream ? 1u : 0u, text, t.finishes});
    }
    push_frames(plan, options);
  }
  auto result = await_writes(plan, write_limit(), transcript_);
  if (result.ok && !error.empty()) {
    result.ok = false;
    result.error = error;
  }
  return result;
}

// A POST's stream, decided now if nothing was sent on it yet (its answer becomes a stream that
// ends at once), or a listening stream.
HttpExchanges::Target HttpExchanges::stream_target_locked(const std::string& route) {
  auto t = route_locked(Json(), route);
  if (t.exchange) {
    if (t.exchange->mode == Exchange::Mode::Undecided) decide_sse_locked(*t.exchange);
    t.stream = t.exchange->stream;
  }
  return t;
}

SendResult HttpExchanges::send_raw(const std::string& bytes, std::size_t chunk,
                                   const std::string& route) {
  PlannedFrame frame;
  {
    const std::lock_guard lock(mutex_);
    const auto t = stream_target_locked(route);
    if (!t.error.empty()) return {false, t.error, {}, {}, {}};
    const auto chunking =
        chunk_events({bytes}, chunk ? WriteMode::Chopped : WriteMode::Lines, chunk);
    const auto seq = t.stream->push(chunking.chunks, false).back();
    frame = {t.stream, t.name, seq, chunking.chunk_count.front(), {}, false};
  }
  return await_writes({frame}, write_limit(), transcript_, "the bytes were");
}

DisconnectResult HttpExchanges::disconnect(const std::string& route) {
  if (options_.legacy) return {false, "legacy HTTP+SSE has no resumable streams", {}, {}};
  if (route != "get" && route.rfind("post:", 0) != 0)
    return {
        false, "only the stream of a POST or the GET listening stream can be disconnected", {}, {}};
  std::shared_ptr<SseStream> stream;
  {
    const std::lock_guard lock(mutex_);
    const auto t = stream_target_locked(route);
    if (!t.error.empty()) return {false, t.error, {}, {}};
    stream = t.stream;
    if (!stream->disconnect())
      return {
          false, "the " + stream->name() + " stream is disconnected already, or ending", {}, {}};
  }
  const auto done = stream->wait_disconnected(write_limit());
  if (!done)
    return {
        false, "the " + stream->name() + " stream ended before its connection was closed", {}, {}};
  return {true, {}, done->stream_last_event_id, done->retry_ms};
}

}  // namespace mcpping
