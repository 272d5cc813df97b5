#include "http/growing_thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <vector>

namespace mcpping {
namespace {

using namespace std::chrono_literals;

// A job that reports it started, then holds its thread until released: a connection.
struct HeldJobs {
  std::vector<std::promise<void>> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();

  std::function<void()> job(std::size_t i) {
    return [this, i] {
      started[i].set_value();
      released.wait();
    };
  }
};

TEST(GrowingThreadPool, StartsNoThreadBeforeItsFirstJob) {
  GrowingThreadPool pool(8);
  EXPECT_EQ(pool.threads(), 0u);
}

TEST(GrowingThreadPool, AJobThatFindsEveryThreadBusyGetsANewOne) {
  HeldJobs held;  // outlives the pool, whose threads wait on it until joined
  GrowingThreadPool pool(8);
  held.started.resize(3);
  for (std::size_t i = 0; i < 3; ++i) {
    pool.enqueue(held.job(i));
    // Bounded: a job left waiting for a thread that is not there would hang here.
    ASSERT_EQ(held.started[i].get_future().wait_for(10s), std::future_status::ready) << i;
    EXPECT_EQ(pool.threads(), i + 1);
  }
  held.release.set_value();
}

TEST(GrowingThreadPool, AnIdleThreadTakesTheNextJob) {
  GrowingThreadPool pool(8);
  for (int i = 0; i < 20; ++i) {
    pool.enqueue([] {});
    ASSERT_TRUE(pool.wait_until_idle(1, 10s)) << i;
  }
  EXPECT_EQ(pool.threads(), 1u);
}

TEST(GrowingThreadPool, BeyondItsLimitJobsWaitForAThread) {
  HeldJobs held;
  GrowingThreadPool pool(2);
  held.started.resize(2);
  pool.enqueue(held.job(0));
  pool.enqueue(held.job(1));
  ASSERT_EQ(held.started[0].get_future().wait_for(10s), std::future_status::ready);
  ASSERT_EQ(held.started[1].get_future().wait_for(10s), std::future_status::ready);
  std::latch both(2);
  pool.enqueue([&both] { both.count_down(); });
  pool.enqueue([&both] { both.count_down(); });
  EXPECT_EQ(pool.threads(), 2u);
  held.release.set_value();
  both.wait();
  EXPECT_EQ(pool.threads(), 2u);
}

TEST(GrowingThreadPool, ShutdownRunsTheQueuedJobsAndJoins) {
  std::atomic<int> ran{0};
  {
    GrowingThreadPool pool(1);
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    pool.enqueue([released] { released.wait(); });
    for (int i = 0; i < 5; ++i) pool.enqueue([&ran] { ++ran; });
    release.set_value();
    pool.shutdown();
    EXPECT_EQ(ran, 5);
    EXPECT_EQ(pool.threads(), 0u);
    pool.enqueue([&ran] { ++ran; });  // dropped: the pool is shut down
  }
  EXPECT_EQ(ran, 5);
}

}  // namespace
}  // namespace mcpping
