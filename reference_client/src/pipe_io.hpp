// Low-level pipe I/O for the stdio transport: SIGPIPE-free writes and reads that a second
// "wake" pipe can interrupt.
#pragma once

#include <cstddef>
#include <string_view>
#include <system_error>

namespace mcp::detail {

// A pipe whose ends are close-on-exec; closes what it still owns.
class Pipe {
 public:
  Pipe();  // throws std::system_error
  ~Pipe();
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  int read_end() const noexcept { return fds_[0]; }
  int write_end() const noexcept { return fds_[1]; }
  void close_read_end() noexcept;
  void close_write_end() noexcept;

 private:
  int fds_[2] = {-1, -1};
};

// Writes all of `data` to `fd`. A reader that has gone away yields std::errc::broken_pipe
// and never a SIGPIPE: the signal is blocked in this thread for the duration of the write
// and, if the write raised it, consumed before the mask is restored. Process-wide signal
// dispositions are left untouched.
std::error_code write_all_without_sigpipe(int fd, std::string_view data);

enum class ReadResult { data, end_of_file, woken, error };

// Blocks until `fd` has data or `wake_fd` becomes readable. Data on `fd` wins over a
// wake-up, so everything written before the wake-up is still read.
ReadResult read_or_wake(int fd, int wake_fd, char* buffer, std::size_t capacity,
                        std::size_t& bytes_read, std::error_code& error);

}  // namespace mcp::detail
