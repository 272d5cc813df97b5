// One SSE stream (a POST's stream, the GET listening stream or the legacy stream): the
// interpreter queues chunks, an httplib worker writes them from the content provider of the
// stream's current connection. A stream outlives its connection when the server closes the
// connection without ending the stream (2025-11-25): the client resumes it with a GET that
// carries Last-Event-ID, on a new connection that first replays what followed that event.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <httplib.h>

#include "engine/channel.hpp"
#include "sse_framing.hpp"

namespace mcpping {

// A resumption granted by SseStream::resume().
struct Resumption {
  std::optional<std::string> stream_last_event_id;  // the last event ID the stream had written
  std::optional<std::int64_t> retry_ms;             // the last `retry:` it had written
  Clock::time_point disconnected_at;                // when its previous connection ended
  std::size_t replayed_bytes = 0;                   // written again first
};

class SseStream {
 public:
  explicit SseStream(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }

  // Queues chunks (each one sink write); with `finish`, the stream ends after them.
  // Returns the sequence number of each chunk (1-based, increasing).
  std::vector<std::uint64_t> push(std::vector<std::string> chunks, bool finish);
  // Waits until chunk `seq` went out: when its write started, or nullopt when the stream
  // broke, was stopped or `deadline` passed first. A chunk queued while the stream has no
  // connection waits for the client to resume it.
  std::optional<Clock::time_point> wait_written(std::uint64_t seq, Clock::time_point deadline);

  // A connection starts serving the stream; `peer_fd` is its socket (-1: unknown), which an
  // idle provider checks for a client that closed it (a write would only notice once data is
  // due). Returns the connection's number, for provide().
  std::uint64_t attach(int peer_fd);

  // The httplib content provider of connection `connection`. Blocks at most `kWake` per
  // call (httplib 0.11 calls it in a loop and only checks for shutdown between calls),
  // checks the client is still there, writes what is queued, ends the connection when the
  // stream finished or the server disconnected it.
  bool provide(httplib::DataSink& sink, std::uint64_t connection);

  // Ends the current connection once what is queued now is written, without ending the
  // stream: later chunks wait for resume(). False when the stream has ended or is already
  // disconnected.
  bool disconnect();
  // Waits until a disconnect() took effect: the last event ID and `retry:` written, when the
  // connection ended; nullopt when the stream broke, was stopped or `deadline` passed first.
  std::optional<Resumption> wait_disconnected(Clock::time_point deadline);
  // The server ended the connection and the stream waits for the client to resume it.
  bool disconnected() const;
  // The client resumes the disconnected stream after event `last_event_id`: the next
  // attach() replays what followed it, then what is queued. nullopt when the stream is not
  // disconnected or wrote no event with that id.
  std::optional<Resumption> resume(const std::string& last_event_id);
  // A GET reconnects the disconnected stream without resuming it (no Last-Event-ID, or one
  // that names none of its events): the stream ends, as a fresh one replaces it. Returns its
  // last event ID, last `retry:` and when its connection ended (nothing is replayed); nullopt
  // when the stream is not disconnected (or a resumption of it is under way).
  std::optional<Resumption> abandon();
  // Whether the stream wrote an event whose `id:` field was `id`.
  bool wrote_event(const std::string& id) const;

  // Ends the stream at the provider's next wake (server shutdown, session deleted).
  void stop();
  bool ended() const;  // finished, broken or stopped

 private:
  static constexpr auto kWake = std::chrono::milliseconds(50);

  // Whether the current connection may write the front of the queue now.
  bool writable_locked() const;
  // Whether the current connection has written all it may before a disconnect.
  bool closing_due_locked() const;

  const std::string name_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::pair<std::uint64_t, std::string>> queue_;
  std::map<std::uint64_t, Clock::time_point> written_at_;
  std::uint64_t pushed_ = 0;
  std::uint64_t written_ = 0;
  bool finish_ = false;
  bool broken_ = false;
  bool stopped_ = false;
  bool done_ = false;
  int peer_fd_ = -1;

  std::uint64_t connection_ = 0;               // the current connection's number
  std::optional<std::uint64_t> close_after_;   // disconnect(): the last chunk it still writes
  std::optional<Clock::time_point> detached_;  // when the server ended the last connection
  Clock::time_point last_detach_{};            // the same, kept once a connection serves it
  std::uint64_t detaches_ = 0;                 // connections the server ended so far
  std::uint64_t awaited_detaches_ = 0;         // disconnect(): the count wait_disconnected awaits
  bool resuming_ = false;                      // resume() granted, attach() not yet called
  std::string replay_;                         // written first by the next connection
  WrittenEvents events_;                       // every byte written, read as a client would
};

}  // namespace mcpping
