#include "core/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

namespace cilia {
namespace {

TEST(ExecutorTest, PostedWorkRunsOnAWorker) {
  std::promise<std::thread::id> ran_on;
  Executor executor(2, 8);
  ASSERT_TRUE(executor.Post([&] { ran_on.set_value(std::this_thread::get_id()); }));
  EXPECT_NE(ran_on.get_future().get(), std::this_thread::get_id());
}

TEST(ExecutorTest, AFullQueueRefusesInsteadOfGrowing) {
  Executor executor(1, 1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  ASSERT_TRUE(executor.Post([&, released] { started.set_value(); released.wait(); }));
  started.get_future().wait();           // the one worker is busy
  EXPECT_TRUE(executor.Post([] {}));     // one may wait
  EXPECT_FALSE(executor.Post([] {}));    // the next is refused
  EXPECT_EQ(executor.queued(), 1u);
  release.set_value();
}

TEST(ExecutorTest, BesideReturnsTheWorksValue) {
  Executor executor(2, 8);
  auto joined = executor.Beside([] { return std::string("lane"); });
  EXPECT_EQ(joined.get(), "lane");
}

TEST(ExecutorTest, BesideRunsOnTheCallerWhenNoWorkerIsFree) {
  Executor executor(1, 0);  // no room to queue at all
  std::promise<void> release;
  std::promise<void> started;
  auto blocker = executor.Beside([&] { started.set_value(); release.get_future().wait(); });
  started.get_future().wait();
  auto joined = executor.Beside([] { return std::this_thread::get_id(); });
  EXPECT_EQ(joined.get(), std::this_thread::get_id());
  release.set_value();
  blocker.get();
}

TEST(ExecutorTest, TryBesideSaysWhenNoWorkerCanTakeTheWork) {
  Executor executor(1, 0);
  std::promise<void> release;
  std::promise<void> started;
  auto blocker = executor.TryBeside([&] { started.set_value(); release.get_future().wait(); });
  ASSERT_TRUE(blocker.has_value());
  started.get_future().wait();
  EXPECT_FALSE(executor.TryBeside([] {}).has_value());
  release.set_value();
  blocker->get();
}

TEST(ExecutorTest, AJoinedThatGoesOutOfScopeWaitsForItsWork) {
  Executor executor(2, 8);
  std::atomic<bool> finished{false};
  {
    auto joined = executor.Beside([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      finished = true;
    });
  }
  EXPECT_TRUE(finished);
}

TEST(ExecutorTest, TheDestructorRunsWhatIsQueued) {
  std::atomic<int> ran{0};
  {
    Executor executor(1, 16);
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(executor.Post([&] { ++ran; }));
  }
  EXPECT_EQ(ran, 10);
}

TEST(ExecutorTest, WorkersStartWhenWorkNeedsThemAndThenStay) {
  Executor executor(4, 0);
  EXPECT_EQ(executor.started(), 0u);  // a server sized for many streams starts none before the first
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> first_started, second_started;
  ASSERT_TRUE(executor.Post([&, released] { first_started.set_value(); released.wait(); }));
  first_started.get_future().wait();
  EXPECT_EQ(executor.started(), 1u);
  ASSERT_TRUE(executor.Post([&, released] { second_started.set_value(); released.wait(); }));
  second_started.get_future().wait();  // the first was busy: a second worker started for it
  EXPECT_EQ(executor.started(), 2u);
  EXPECT_EQ(executor.busy(), 2u);
  release.set_value();
  while (executor.busy() > 0) std::this_thread::yield();
  std::promise<void> third_ran;
  ASSERT_TRUE(executor.Post([&] { third_ran.set_value(); }));
  third_ran.get_future().wait();
  EXPECT_EQ(executor.started(), 2u);  // an idle worker took it
}

TEST(ExecutorTest, NoMoreWorkersThanItMayRun) {
  Executor executor(2, 1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> running{0};
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(executor.Post([&, released] { ++running; released.wait(); }));
  while (running < 2) std::this_thread::yield();
  EXPECT_TRUE(executor.Post([] {}));   // one may wait
  EXPECT_FALSE(executor.Post([] {}));  // then the queue is full
  EXPECT_EQ(executor.started(), 2u);
  release.set_value();
}

}  // namespace
}  // namespace cilia
