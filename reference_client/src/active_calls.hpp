// The HTTP calls a transport has in flight, so that close() can abort every one of them,
// including calls that had not connected yet when close() began.
#pragma once

#include "http_call.hpp"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>

namespace mcp::detail {

class ActiveCalls {
 public:
  // Unregisters its call when destroyed.
  class Lease {
   public:
    Lease() = default;
    Lease(ActiveCalls* owner, std::shared_ptr<HttpCall> call)
        : owner_(owner), call_(std::move(call)) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&& other) noexcept = delete;
    ~Lease();

    explicit operator bool() const noexcept { return call_ != nullptr; }
    HttpCall& operator*() const noexcept { return *call_; }
    HttpCall* operator->() const noexcept { return call_.get(); }
    const std::shared_ptr<HttpCall>& get() const noexcept { return call_; }

   private:
    ActiveCalls* owner_ = nullptr;
    std::shared_ptr<HttpCall> call_;
  };

  // A new registered call; an empty lease once close() began.
  Lease open(const std::string& origin, HttpTimeouts timeouts);

  // Refuses new calls and aborts the registered ones, again and again, until every lease is
  // gone or `limit` passed. Returns whether all are gone.
  bool close(std::chrono::milliseconds limit);

 private:
  void release(const std::shared_ptr<HttpCall>& call);

  std::mutex mutex_;
  std::condition_variable released_;
  std::set<std::shared_ptr<HttpCall>> calls_;
  bool closed_ = false;
};

}  // namespace mcp::detail
