// The Channel over the server's own stdin/stdout/stderr, as an MCP client spawns it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/channel.hpp"
#include "engine/line_splitter.hpp"

namespace mcpping {

struct WriteOutcome {
  bool ok = true;
  int err = 0;
  std::size_t writes = 0;
  // When the write carrying the message's last byte (before its newline) started, and which
  // write that was (0-based): a response the client sent before then cannot answer it.
  Clock::time_point last_write_started{};
  std::size_t stamped_write = 0;
};

// Writes all of `data` to `fd` in pieces of at most `chunk` bytes (0: as few writes as
// possible), each piece its own write(2), so chopping reaches the client as separate reads.
WriteOutcome write_all(int fd, std::string_view data, std::size_t chunk);

class StdioChannel : public Channel {
 public:
  // Queued client input beyond this stops the reader (the client then blocks on its
  // writes) instead of growing without bound.
  static constexpr std::size_t kQueueLimitBytes = 16u << 20;

  StdioChannel(int in_fd, int out_fd, int err_fd, std::size_t line_cap_bytes);
  ~StdioChannel() override;

  // Starts the reader thread.
  void start();
  // Stops the reader thread (idempotent).
  void stop();

  SendResult send(const std::vector<std::string>& frames, const SendOptions& options) override;
  SendResult send_raw(const std::string& bytes, std::size_t chunk,
                      const std::string& route) override;
  Incoming receive(Clock::time_point deadline) override;
  void end_input(Incoming::Kind why) override;
  void close_input() override;
  void close_output() override;
  std::size_t write_stderr(std::string_view bytes, Clock::time_point deadline) override;
  void hold_input_at(std::size_t min_bytes) override;

 private:
  // Writes each of `writes` (in `chunk`-byte writes, 0: as few as possible) until one fails,
  // recording the outcome for `frames_each` frames carried by each.
  SendResult write_out(const std::vector<std::string>& writes, std::size_t chunk,
                       std::size_t frames_each);
  void reader_loop();
  // Reader thread: queues what is in the pipe now, without waiting for more; false at EOF.
  bool read_available(LineSplitter& splitter, std::vector<char>& buffer);
  // Reader thread: queues what the `n` bytes read into `buffer` complete; at the end of input
  // (n <= 0: end of file or a read error), what is left and Eof (false).
  bool queue_read(LineSplitter& splitter, const std::vector<char>& buffer, ssize_t n);
  // Reader thread: the input ends as end_input() asked, now that what was in the pipe is
  // queued (`reader_ends`: the reader stops too).
  void end_requested_input(bool reader_ends);
  void push(Incoming in);
  void wake();
  void release_input();
  // Reader thread: holds the input when a hold is armed and `splitter` has enough of a message.
  void hold_if_partial(const LineSplitter& splitter);
  // After a write to the client: a held input is read again.
  void release_hold();
  // `f()`, with mutex_ held.
  template <class F>
  auto locked(F f) {
    const std::lock_guard lock(mutex_);
    return f();
  }

  const int in_fd_, out_fd_, err_fd_;
  const std::size_t line_cap_;
  int wake_[2] = {-1, -1};
  std::thread reader_;

  std::mutex mutex_;
  std::condition_variable arrived_, drained_;
  std::deque<Incoming> queue_;
  std::size_t queued_bytes_ = 0;
  bool ended_ = false;                       // Eof queued
  std::optional<Incoming::Kind> input_end_;  // end_input(): once the queue is empty
  // end_input() asked while the reader runs: the reader first queues what the client had
  // already written into the pipe, then sets input_end_.
  std::optional<Incoming::Kind> end_requested_;
  bool reader_running_ = false;
  std::size_t hold_at_bytes_ = 0;  // hold_input_at(): armed when not 0, until it triggers
  bool held_ = false;              // the reader leaves stdin alone until the next write

  std::atomic<bool> stopping_{false};
  std::atomic<bool> input_closed_{false};
  // Set by the reader once it no longer waits on our stdin: only then is the pipe's read end
  // really closed (a thread blocked in poll() on it keeps it open).
  bool input_released_ = false;
  std::condition_variable released_;
  std::mutex out_mutex_;
  bool output_closed_ = false;
};

}  // namespace mcpping
