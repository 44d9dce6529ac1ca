#include "core/concurrency.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace cilia {
namespace {

TEST(RunBeside, RunsOnAnotherThreadAndHandsBackTheResult) {
  const std::thread::id caller = std::this_thread::get_id();
  auto future = RunBeside([] { return std::this_thread::get_id(); });
  EXPECT_NE(future.get(), caller);
  auto text = RunBeside([] { return std::string("done"); });
  EXPECT_EQ(text.get(), "done");
}

TEST(RunBeside, RunsWhileTheCallerWorks) {
  std::atomic<bool> started{false};
  auto future = RunBeside([&started] {
    started = true;
    return 1;
  });
  // The caller does not have to ask for the result for the work to begin.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!started && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  EXPECT_TRUE(started);
  EXPECT_EQ(future.get(), 1);
}

TEST(RunBeside, AFutureLeftUnaskedWaitsForItsWorkBeforeTheLocalsGo) {
  int written = 0;
  {
    auto future = RunBeside([&written] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      written = 7;
    });
    // Leaves the scope without get(), as an early error return would.
  }
  EXPECT_EQ(written, 7);
}

}  // namespace
}  // namespace cilia
