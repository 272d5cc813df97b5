#include "active_calls.hpp"

#include <vector>

namespace mcp::detail {

namespace {
// How often close() repeats its aborts: a call that was connecting during one abort is in
// flight, and abortable, by the next.
constexpr std::chrono::milliseconds kAbortRepeat{20};
}  // namespace

ActiveCalls::Lease::~Lease() {
  if (owner_ != nullptr && call_ != nullptr) owner_->release(call_);
}

ActiveCalls::Lease ActiveCalls::open(const std::string& origin, HttpTimeouts timeouts) {
  auto call = std::make_shared<HttpCall>(origin, timeouts);
  std::lock_guard lock(mutex_);
  if (closed_) return {};
  calls_.insert(call);
  return Lease(this, std::move(call));
}

bool ActiveCalls::close(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::unique_lock lock(mutex_);
  closed_ = true;
  while (!calls_.empty()) {
    const std::vector<std::shared_ptr<HttpCall>> snapshot(calls_.begin(), calls_.end());
    lock.unlock();
    for (const auto& call : snapshot) call->abort();
    lock.lock();
    if (std::chrono::steady_clock::now() >= deadline) return calls_.empty();
    released_.wait_for(lock, kAbortRepeat, [&] { return calls_.empty(); });
  }
  return true;
}

void ActiveCalls::release(const std::shared_ptr<HttpCall>& call) {
  {
    std::lock_guard lock(mutex_);
    calls_.erase(call);
  }
  released_.notify_all();
}

}  // namespace mcp::detail
