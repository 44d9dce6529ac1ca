// The progress line: what it says for counts, bytes and waiting, and that it
// stays silent when stderr is not a terminal.
#include "app/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace cilia::app {
namespace {

using ::testing::HasSubstr;

// What a Progress wrote, through a memory stream.
class Captured {
 public:
  Captured() : file_(open_memstream(&data_, &size_)) {}
  ~Captured() {
    std::fclose(file_);
    std::free(data_);
  }
  std::FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(data_, size_);
  }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
};

class ProgressTest : public ::testing::Test {
 protected:
  FakeClock clock_{0};
  Captured out_;
};

TEST_F(ProgressTest, WithATotalShowsABarCountsRateAndEta) {
  clock_.Set(1'000'000);
  Progress progress("ingest chats.json", out_.file(), /*enabled=*/true, clock_);
  clock_.Advance(2000);
  progress.Update(1200, 3000, "messages");
  EXPECT_EQ(progress.Line(), "ingest chats.json [########............] 1,200/3,000 messages · 600/s · ETA 0:03");
  EXPECT_EQ(out_.text(), "\r" + progress.Line() + "\033[K");
}

TEST_F(ProgressTest, BytesAreShownInUnitsAndWithoutATotalThereIsNoBar) {
  Progress progress("export", out_.file(), true, clock_);
  clock_.Advance(4000);
  progress.Update(18'000'000, 0, "bytes");
  EXPECT_EQ(progress.Line(), "export 18.0 MB · 4.5 MB/s · 0:04");
  progress.Update(2'500, 10'000, "bytes");
  EXPECT_EQ(progress.Line(), "export [#####...............] 2.5 kB/10.0 kB · 625 B/s · ETA 0:12");
}

TEST_F(ProgressTest, WorkThatReportsNothingShowsTheTimeTaken) {
  Progress progress("jobs run nightly", out_.file(), true, clock_);
  clock_.Advance(75'000);
  progress.Tick();
  EXPECT_EQ(progress.Line(), "jobs run nightly · 1:15");
  EXPECT_THAT(out_.text(), HasSubstr("jobs run nightly · 1:15"));
}

TEST_F(ProgressTest, RedrawsAtMostEveryTenthOfASecondButAlwaysAtTheEnd) {
  Progress progress("ingest", out_.file(), true, clock_);
  progress.Update(1, 100, "messages");
  const size_t first = out_.text().size();
  clock_.Advance(10);
  progress.Update(2, 100, "messages");
  EXPECT_EQ(out_.text().size(), first) << "drawn again within 100 ms";
  clock_.Advance(10);
  progress.Update(100, 100, "messages");
  EXPECT_THAT(out_.text(), HasSubstr("100/100 messages"));
}

TEST_F(ProgressTest, TheLineIsClearedWhenDoneSoTheSummaryTakesItsPlace) {
  {
    Progress progress("import", out_.file(), true, clock_);
    progress.Update(5, 10, "messages");
  }
  EXPECT_TRUE(out_.text().ends_with("\r\033[K")) << out_.text();
}

TEST_F(ProgressTest, SilentWhenNotATerminal) {
  {
    Progress progress("ingest", out_.file(), /*enabled=*/false, clock_);
    progress.Update(5, 10, "messages");
    progress.Tick();
    progress.StartTicker();
    clock_.Advance(1000);
    progress.Update(10, 10, "messages");
  }
  EXPECT_EQ(out_.text(), "");
}

TEST_F(ProgressTest, TheTickerKeepsTheLineMovingUntilDestroyed) {
  {
    Progress progress("jobs run reindex", out_.file(), true, clock_);
    progress.StartTicker();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  EXPECT_THAT(out_.text(), HasSubstr("jobs run reindex · 0:00"));
}

}  // namespace
}  // namespace cilia::app
