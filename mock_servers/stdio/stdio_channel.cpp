#include "stdio/stdio_channel.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "engine/host.hpp"

namespace mcpping {

namespace {

std::string errno_text(int err) {
  if (err == EPIPE) return "EPIPE (the client closed its end of the pipe)";
  return err == EBADF ? "EBADF" : std::strerror(err);
}

// Points `fd` at /dev/null: the pipe end it held closes (the client sees EPIPE or EOF),
// yet the descriptor number stays valid, so no other thread can race on its reuse.
void retire_fd(int fd) {
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    ::dup2(null_fd, fd);
    ::close(null_fd);
  }
}

}  // namespace

WriteOutcome write_all(int fd, std::string_view data, std::size_t chunk) {
  WriteOutcome out;
  // The message is complete at its last byte before the newline: a client that parses JSON as
  // a stream answers then, before the newline's own write when the frame is chopped.
  std::size_t complete_at = data.size();
  while (complete_at > 0 && (data[complete_at - 1] == '\n' || data[complete_at - 1] == '\r'))
    --complete_at;
  std::size_t offset = 0;
  bool stamped = false;
  while (!data.empty()) {
    const auto size = chunk == 0 ? data.size() : std::min(chunk, data.size());
    // Stamped before the write that may carry that byte: a fast client can answer, and the
    // reader thread stamp the answer, before write() even returns here.
    if (!stamped && offset + size >= complete_at) {
      out.last_write_started = Clock::now();
      out.stamped_write = out.writes;
      stamped = true;
    }
    const auto n = ::write(fd, data.data(), size);
    if (n < 0) {
      if (errno == EINTR) continue;
      out.ok = false;
      out.err = errno;
      return out;
    }
    ++out.writes;
    offset += static_cast<std::size_t>(n);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return out;
}

StdioChannel::StdioChannel(int in_fd, int out_fd, int err_fd, std::size_t line_cap_bytes)
    : in_fd_(in_fd), out_fd_(out_fd), err_fd_(err_fd), line_cap_(line_cap_bytes) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe2 failed");
}

StdioChannel::~StdioChannel() {
  stop();
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void StdioChannel::start() {
  locked([&] { reader_running_ = true; });
  reader_ = std::thread([this] {
    reader_loop();
    end_requested_input(/*reader_ends=*/true);
  });
}

void StdioChannel::stop() {
  stopping_ = true;
  wake();
  drained_.notify_all();
  if (reader_.joinable()) reader_.join();
}

void StdioChannel::wake() {
  const char byte = 1;
  [[maybe_unused]] auto n = ::write(wake_[1], &byte, 1);
}

void StdioChannel::push(Incoming in) {
  std::unique_lock lock(mutex_);
  drained_.wait(lock, [&] { return queued_bytes_ < kQueueLimitBytes || stopping_; });
  if (in.kind == Incoming::Kind::Eof) {
    ended_ = true;
    released_.notify_all();  // a reader that ended holds no pipe open either
  }
  queued_bytes_ += in.text.size();
  queue_.push_back(std::move(in));
  arrived_.notify_all();
}

void StdioChannel::reader_loop() {
  LineSplitter splitter(line_cap_);
  std::vector<char> buffer(64 * 1024);
  bool reading = true;
  bool watch_output = true;
  while (!stopping_) {
    const bool held = locked([&] { return held_; });
    pollfd fds[2] = {{wake_[0], POLLIN, 0},
                     {reading ? (held ? -1 : in_fd_) : (watch_output ? out_fd_ : -1), 0, 0}};
    // Reading: wait for input. After close_input: watch our stdout for the client closing
    // its end (POLLERR), the only sign left that it went away.
    if (reading) fds[1].events = POLLIN;
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents & POLLIN) {
      char drain[64];
      while (::read(wake_[0], drain, sizeof drain) > 0) {
      }
      if (stopping_) break;
      if (reading) hold_if_partial(splitter);  // armed while part of a message was buffered
      if (input_closed_ && reading) {
        reading = false;
        release_input();
        continue;
      }
      const bool end_asked =
          locked([&] { return end_requested_.has_value() && !input_end_.has_value(); });
      if (end_asked) {
        if (reading && !read_available(splitter, buffer)) return;
        end_requested_input(/*reader_ends=*/false);
        continue;  // the pipe was drained: its poll result is stale
      }
    }
    if (!reading) {
      if (fds[1].revents & POLLNVAL) watch_output = false;
      if (fds[1].revents & (POLLERR | POLLHUP)) {
        push(Incoming{Incoming::Kind::Eof, {}, 0, Clock::now()});
        return;
      }
      continue;
    }
    if (fds[1].revents & POLLNVAL) {  // no stdin at all
      push(Incoming{Incoming::Kind::Eof, {}, 0, Clock::now()});
      return;
    }
    if (!(fds[1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    const auto n = ::read(in_fd_, buffer.data(), buffer.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (input_closed_) {
      reading = false;  // what is read now comes from /dev/null
      release_input();
      continue;
    }
    if (!queue_read(splitter, buffer, n)) return;
    hold_if_partial(splitter);
  }
}

// What the client wrote before the signal is still in the pipe, maybe not read yet: the
// reader queues it first (a SIGTERM right after the client's pong must not lose the pong).
void StdioChannel::end_input(Incoming::Kind why) {
  locked([&] { (reader_running_ ? end_requested_ : input_end_) = why; });
  arrived_.notify_all();
  wake();
}

void StdioChannel::end_requested_input(bool reader_ends) {
  const std::lock_guard lock(mutex_);
  if (reader_ends) reader_running_ = false;
  if (end_requested_ && !input_end_) input_end_ = end_requested_;
  arrived_.notify_all();
}

bool StdioChannel::read_available(LineSplitter& splitter, std::vector<char>& buffer) {
  for (;;) {
    pollfd fd{in_fd_, POLLIN, 0};
    if (::poll(&fd, 1, 0) <= 0 || !(fd.revents & (POLLIN | POLLHUP | POLLERR))) return true;
    const auto n = ::read(in_fd_, buffer.data(), buffer.size());
    if (n < 0) return errno == EINTR || errno == EAGAIN;
    if (!queue_read(splitter, buffer, n)) return false;
  }
}

bool StdioChannel::queue_read(LineSplitter& splitter, const std::vector<char>& buffer, ssize_t n) {
  const auto now = Clock::now();
  if (n <= 0) {
    if (auto rest = splitter.finish(now)) push(std::move(*rest));
    push(Incoming{Incoming::Kind::Eof, {}, 0, now});
    return false;
  }
  std::vector<Incoming> events;
  splitter.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)), now, events);
  for (auto& e : events) push(std::move(e));
  return true;
}

Incoming StdioChannel::receive(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  arrived_.wait_until(lock, deadline, [&] { return !queue_.empty() || input_end_.has_value(); });
  if (queue_.empty()) {
    const auto kind = input_end_ ? *input_end_
                      : ended_   ? Incoming::Kind::Eof
                                 : Incoming::Kind::Timeout;
    return Incoming{kind, {}, 0, Clock::now()};
  }
  auto in = std::move(queue_.front());
  queue_.pop_front();
  if (in.kind == Incoming::Kind::Eof) {
    queue_.push_back(in);  // Eof stays: later calls see it again
  } else {
    queued_bytes_ -= in.text.size();
    drained_.notify_all();
  }
  return in;
}

SendResult StdioChannel::send(const std::vector<std::string>& frames, const SendOptions& options) {
  if (options.mode == WriteMode::Coalesced) {
    std::string all;
    for (const auto& f : frames) all += f + "\n";
    return write_out({all}, 0, frames.size());
  }
  std::vector<std::string> lines;
  for (const auto& f : frames) lines.push_back(f + "\n");
  return write_out(lines, options.mode == WriteMode::Chopped ? options.chunk : 0, 1);
}

SendResult StdioChannel::send_raw(const std::string& bytes, std::size_t chunk, const std::string&) {
  return write_out({bytes}, chunk, 1);
}

SendResult StdioChannel::write_out(const std::vector<std::string>& writes, std::size_t chunk,
                                   std::size_t frames_each) {
  SendResult result;
  {
    const std::lock_guard lock(out_mutex_);
    for (const auto& bytes : writes) {
      if (output_closed_) {
        result.ok = false;
        result.error = "the script closed the server's stdout";
        break;
      }
      const auto w = write_all(out_fd_, bytes, chunk);
      if (!w.ok) {
        result.ok = false;
        result.error = errno_text(w.err);
        break;
      }
      result.writes.insert(result.writes.end(), frames_each, w.writes);
      result.done.insert(result.done.end(), frames_each, w.last_write_started);
    }
  }
  release_hold();
  return result;
}

void StdioChannel::hold_input_at(std::size_t min_bytes) {
  locked([&] { hold_at_bytes_ = min_bytes; });
  wake();  // the reader may hold enough of a message already
}

void StdioChannel::hold_if_partial(const LineSplitter& splitter) {
  const auto bytes = splitter.buffered();
  {
    const std::lock_guard lock(mutex_);
    if (hold_at_bytes_ == 0 || bytes < hold_at_bytes_) return;
    hold_at_bytes_ = 0;
    held_ = true;
  }
  Incoming in{Incoming::Kind::Event, "partial-message", 0, Clock::now()};
  in.meta = {{"bytes", bytes}};
  push(std::move(in));
}

void StdioChannel::release_hold() {
  if (locked([&] { return std::exchange(held_, false); })) wake();
}

void StdioChannel::close_input() {
  input_closed_ = true;
  retire_fd(in_fd_);
  wake();
  // The step is done only when the client's writes fail: wait (bounded) until the reader has
  // left its poll() on the old pipe, which holds the read end open until it returns.
  std::unique_lock lock(mutex_);
  released_.wait_for(lock, std::chrono::seconds(2), [&] { return input_released_ || ended_; });
}

void StdioChannel::release_input() {
  const std::lock_guard lock(mutex_);
  input_released_ = true;
  released_.notify_all();
}

void StdioChannel::close_output() {
  const std::lock_guard lock(out_mutex_);
  output_closed_ = true;
  retire_fd(out_fd_);
}

std::size_t StdioChannel::write_stderr(std::string_view bytes, Clock::time_point deadline) {
  return write_stderr_bounded(err_fd_, bytes, deadline);
}

}  // namespace mcpping
