// Keeps SIGPIPE away from the calling thread without touching process-wide dispositions:
// the signal is blocked while the guard lives, and a SIGPIPE raised meanwhile (by a write
// to a closed pipe or socket in this thread) is consumed before the mask is restored.
#pragma once

#include <signal.h>

namespace mcp::detail {

class SigpipeGuard {
 public:
  SigpipeGuard() noexcept;
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_mask_;
  bool was_pending_ = false;  // a SIGPIPE pending before us is somebody else's: left alone
};

}  // namespace mcp::detail
