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

TEST(ProgressTest, WithATotalShowsABarCountsRateAndEta) {
  FakeClock clock(1'000'000);
  Captured out;
  Progress progress("ingest chats.json", out.file(), /*enabled=*/true, clock);
  clock.Advance(2000);
  progress.Update(1200, 3000, "messages");
  EXPECT_EQ(progress.Line(), "ingest chats.json [########............] 1,200/3,000 messages · 600/s · ETA 0:03");
  EXPECT_EQ(out.text(), "\r" + progress.Line() + "\033[K");
}

TEST(ProgressTest, BytesAreShownInUnitsAndWithoutATotalThereIsNoBar) {
  FakeClock clock(0);
  Captured out;
  Progress progress("export", out.file(), true, clock);
  clock.Advance(4000);
  progress.Update(18'000'000, 0, "bytes");
  EXPECT_EQ(progress.Line(), "export 18.0 MB · 4.5 MB/s · 0:04");
  progress.Update(2'500, 10'000, "bytes");
  EXPECT_EQ(progress.Line(), "export [#####...............] 2.5 kB/10.0 kB · 625 B/s · ETA 0:12");
}

TEST(ProgressTest, WorkThatReportsNothingShowsTheTimeTaken) {
  FakeClock clock(0);
  Captured out;
  Progress progress("jobs run nightly", out.file(), true, clock);
  clock.Advance(75'000);
  progress.Tick();
  EXPECT_EQ(progress.Line(), "jobs run nightly · 1:15");
  EXPECT_THAT(out.text(), HasSubstr("jobs run nightly · 1:15"));
}

TEST(ProgressTest, RedrawsAtMostEveryTenthOfASecondButAlwaysAtTheEnd) {
  FakeClock clock(0);
  Captured out;
  Progress progress("ingest", out.file(), true, clock);
  progress.Update(1, 100, "messages");
  const size_t first = out.text().size();
  clock.Advance(10);
  progress.Update(2, 100, "messages");
  EXPECT_EQ(out.text().size(), first) << "drawn again within 100 ms";
  clock.Advance(10);
  progress.Update(100, 100, "messages");
  EXPECT_THAT(out.text(), HasSubstr("100/100 messages"));
}

TEST(ProgressTest, TheLineIsClearedWhenDoneSoTheSummaryTakesItsPlace) {
  FakeClock clock(0);
  Captured out;
  {
    Progress progress("import", out.file(), true, clock);
    progress.Update(5, 10, "messages");
  }
  EXPECT_TRUE(out.text().ends_with("\r\033[K")) << out.text();
}

TEST(ProgressTest, SilentWhenNotATerminal) {
  FakeClock clock(0);
  Captured out;
  {
    Progress progress("ingest", out.file(), /*enabled=*/false, clock);
    progress.Update(5, 10, "messages");
    progress.Tick();
    progress.StartTicker();
    clock.Advance(1000);
    progress.Update(10, 10, "messages");
  }
  EXPECT_EQ(out.text(), "");
}

TEST(ProgressTest, TheTickerKeepsTheLineMovingUntilDestroyed) {
  FakeClock clock(0);
  Captured out;
  {
    Progress progress("jobs run reindex", out.file(), true, clock);
    progress.StartTicker();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  EXPECT_THAT(out.text(), HasSubstr("jobs run reindex · 0:00"));
}

}  // namespace
}  // namespace cilia::app
