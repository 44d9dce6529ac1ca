#include "core/work_progress.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace cilia {
namespace {

TEST(WorkProgressTest, CountsWhatIsDoneOfTheTotalAndTheTokens) {
  WorkProgress progress;
  EXPECT_EQ(progress.Read().updated_at, 0) << "nothing reported yet";
  progress.Begin(10, "messages", 100);
  progress.Advance(4, 200);
  progress.AddTokens(1500, 250);
  const WorkProgress::Snapshot s = progress.Read();
  EXPECT_EQ(s.done, 4);
  EXPECT_EQ(s.total, 10);
  EXPECT_EQ(s.unit, "messages");
  EXPECT_EQ(s.tokens, 1500);
  EXPECT_EQ(s.updated_at, 250);
}

TEST(WorkProgressTest, TheCountNeverRunsPastAKnownTotalAndAnUnknownOneStaysUnknown) {
  WorkProgress known;
  known.Begin(3, "days", 1);
  known.Advance(5, 2);
  EXPECT_EQ(known.Read().total, 5);
  WorkProgress unknown;
  unknown.Advance(2, 1);
  EXPECT_EQ(unknown.Read().total, 0);
  EXPECT_EQ(unknown.Read().done, 2);
}

TEST(WorkProgressTest, ReadersSeeAWholeSnapshotWhileTheWorkerCounts) {
  WorkProgress progress;
  progress.Begin(100000, "messages", 1);
  std::atomic<bool> done{false};
  std::thread worker([&] {
    for (int i = 0; i < 100000; ++i) progress.Advance(1, i);
    done = true;
  });
  int64_t last = 0;
  while (!done) {
    const WorkProgress::Snapshot s = progress.Read();
    EXPECT_GE(s.done, last) << "counts only grow";
    EXPECT_LE(s.done, s.total);
    last = s.done;
  }
  worker.join();
  EXPECT_EQ(progress.Read().done, 100000);
}

}  // namespace
}  // namespace cilia
