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
  ex->id = requests.front();
  ex->key = safe_dump(ex->id);
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
    if (stopping_) return;
    stopping_ = true;
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
  if (options_.legacy) {
    t.stream = sessions_.legacy_stream();
    const auto& [session, key] = legacy_initialize_;
    if (!key.empty() && message.is_object() && is_routable_response(message) &&
        safe_dump(message["id"]) == key) {
      sessions_.note_initialize_result(session, message);
      legacy_initialize_ = {};
    }
    if (!t.stream) {
      t.error = "the client has no SSE stream open";
    } else {
      t.name = "sse";
    }
    return t;
  }
  const bool response = message.is_object() && is_routable_response(message);
  const auto key = response ? safe_dump(message["id"]) : std::string();
  std::shared_ptr<Exchange> ex;
  if (route == "get") {
    t.stream = sessions_.latest_get_stream();
    t.name = "get";
    if (!t.stream) t.error = "the client has no GET stream open";
    return t;
  }
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
  } else if (!pending_.empty()) {
    for (auto it = pending_.rbegin(); it != pending_.rend() && !ex; ++it)
      if (!(*it)->answered) ex = *it;
  }
  if (!ex) {
    t.stream = sessions_.latest_get_stream();
    t.name = "get";
    if (!t.stream)
      t.error = "no stream to send on: no request is pending and no GET stream is open";
    return t;
  }
  t.exchange = ex;
  t.name = "post:" + ex->key;
  if (response && ex->open.count(key)) {
    t.answers = key;
    t.finishes = ex->open.size() == 1;
  }
  return t;
}

namespace {

// A frame of a send() and where it went.
struct PlannedFrame {
  std::shared_ptr<SseStream> stream;  // null: JSON body or not sent
  std::string name;
  std::uint64_t seq = 0;
  std::size_t writes = 1;
};

// The frames of one send() in order. Consecutive frames to one stream share the write mode's
// chunking (coalesced: one chunk), so they are pushed to it together.
class FramePlan {
 public:
  explicit FramePlan(const SendOptions& options) : options_(options) {}

  // A frame written on no stream: a POST's JSON body (`writes` 1), or not sent (0).
  void add_without_stream(std::string name, std::size_t writes) {
    flush();
    PlannedFrame p;
    p.name = std::move(name);
    p.writes = writes;
    plan_.push_back(std::move(p));
  }

  void add_event(const std::shared_ptr<SseStream>& stream, std::string name,
                 const std::string& text, bool finishes) {
    if (run_stream_ != stream) flush();
    run_stream_ = stream;
    run_events_.push_back(sse_event(text, options_.sse));
    run_index_.push_back(plan_.size());
    run_finish_ = run_finish_ || finishes;
    PlannedFrame p;
    p.name = std::move(name);
    p.stream = stream;
    plan_.push_back(std::move(p));
  }

  std::vector<PlannedFrame> take() {
    flush();
    return std::move(plan_);
  }

 private:
  void flush() {
    if (!run_stream_) return;
    const auto chunking = chunk_events(run_events_, options_.mode, options_.chunk);
    const auto seqs = run_stream_->push(chunking.chunks, run_finish_);
    for (std::size_t j = 0; j < run_index_.size(); ++j) {
      plan_[run_index_[j]].seq = seqs[chunking.last_chunk[j]];
      plan_[run_index_[j]].writes = chunking.chunk_count[j];
    }
    run_stream_.reset();
    run_events_.clear();
    run_index_.clear();
    run_finish_ = false;
  }

  const SendOptions& options_;
  std::vector<PlannedFrame> plan_;
  std::shared_ptr<SseStream> run_stream_;
  std::vector<std::string> run_events_;
  std::vector<std::size_t> run_index_;
  bool run_finish_ = false;
};

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
    FramePlan planner(options);
    for (const auto& text : frames) {
      const auto message = Json::parse(text, nullptr, false);
      auto t = route_locked(message, options.route);
      if (!t.error.empty()) {
        error = t.error;
        break;
      }
      if (t.exchange && !to_exchange_locked(t, message, text)) {
        planner.add_without_stream(t.name, 1);
      } else if (!t.stream) {  // a response nothing waits for
        planner.add_without_stream(t.name, 0);
      } else {
        planner.add_event(t.stream, t.name, text, t.finishes);
      }
    }
    plan = planner.take();
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
    if (!t.error.empty()) {
      SendResult failed;
      failed.ok = false;
      failed.error = t.error;
      return failed;
    }
    const auto chunking =
        chunk_events({bytes}, chunk ? WriteMode::Chopped : WriteMode::Lines, chunk);
    frame = {t.stream, t.name, t.stream->push(chunking.chunks, false).back(),
             chunking.chunk_count.front()};
  }
  return await_writes({frame}, write_limit(), transcript_, "the bytes were");
}

DisconnectResult HttpExchanges::disconnect(const std::string& route) {
  DisconnectResult result;
  if (options_.legacy) {
    result.error = "legacy HTTP+SSE has no resumable streams";
    return result;
  }
  if (route != "get" && route.rfind("post:", 0) != 0) {
    result.error = "only the stream of a POST or the GET listening stream can be disconnected";
    return result;
  }
  std::shared_ptr<SseStream> stream;
  {
    const std::lock_guard lock(mutex_);
    const auto t = stream_target_locked(route);
    if (!t.error.empty()) {
      result.error = t.error;
      return result;
    }
    stream = t.stream;
    if (!stream->disconnect()) {
      result.error = "the " + stream->name() + " stream is disconnected already, or ending";
      return result;
    }
  }
  if (!stream->wait_disconnected(write_limit())) {
    result.error = "the " + stream->name() + " stream ended before its connection was closed";
    return result;
  }
  result.ok = true;
  result.last_event_id = stream->last_event_id();
  result.retry_ms = stream->retry_ms();
  return result;
}

}  // namespace mcpping
