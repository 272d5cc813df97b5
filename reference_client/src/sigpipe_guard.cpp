#include "sigpipe_guard.hpp"

#include <pthread.h>

#include <cerrno>
#include <ctime>

namespace mcp::detail {

namespace {

sigset_t sigpipe_only() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  return set;
}

bool sigpipe_pending() {
  sigset_t pending;
  sigpending(&pending);
  return sigismember(&pending, SIGPIPE) == 1;
}

}  // namespace

SigpipeGuard::SigpipeGuard() noexcept {
  const sigset_t only = sigpipe_only();
  pthread_sigmask(SIG_BLOCK, &only, &old_mask_);
  was_pending_ = sigpipe_pending();
}

SigpipeGuard::~SigpipeGuard() {
  if (!was_pending_ && sigpipe_pending()) {
    const sigset_t only = sigpipe_only();
    const timespec zero{0, 0};
    while (sigtimedwait(&only, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

}  // namespace mcp::detail
