#include "pipe_io.hpp"

#include "sigpipe_guard.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace mcp::detail {

Pipe::Pipe() {
  if (::pipe2(fds_, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "pipe2");
  }
}

Pipe::~Pipe() {
  close_read_end();
  close_write_end();
}

void Pipe::close_read_end() noexcept {
  if (fds_[0] >= 0) ::close(fds_[0]);
  fds_[0] = -1;
}

void Pipe::close_write_end() noexcept {
  if (fds_[1] >= 0) ::close(fds_[1]);
  fds_[1] = -1;
}

std::error_code write_all_without_sigpipe(int fd, std::string_view data) {
  const SigpipeGuard guard;
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return {errno, std::generic_category()};
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

ReadResult read_or_wake(int fd, int wake_fd, char* buffer, std::size_t capacity,
                        std::size_t& bytes_read, std::error_code& error) {
  bytes_read = 0;
  for (;;) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    const int ready = ::poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      error.assign(errno, std::generic_category());
      return ReadResult::error;
    }
    if (fds[0].revents != 0) {
      const ssize_t n = ::read(fd, buffer, capacity);
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        error.assign(errno, std::generic_category());
        return ReadResult::error;
      }
      if (n == 0) return ReadResult::end_of_file;
      bytes_read = static_cast<std::size_t>(n);
      return ReadResult::data;
    }
    if (fds[1].revents != 0) return ReadResult::woken;
  }
}

}  // namespace mcp::detail
