#include "app/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace cilia::app {

namespace {

constexpr int64_t kRedrawMs = 100;
constexpr auto kTickerPeriod = std::chrono::milliseconds(250);
constexpr int kBarWidth = 20;

// 1234567 -> "1,234,567".
std::string Grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string Bytes(double n) {
  if (n < 1e3) return fmt::format("{:.0f} B", n);
  if (n < 1e6) return fmt::format("{:.1f} kB", n / 1e3);
  if (n < 1e9) return fmt::format("{:.1f} MB", n / 1e6);
  return fmt::format("{:.2f} GB", n / 1e9);
}

// 75 s -> "1:15"; 3725 s -> "1:02:05".
std::string Duration(int64_t seconds) {
  if (seconds >= 3600) return fmt::format("{}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60);
  return fmt::format("{}:{:02}", seconds / 60, seconds % 60);
}

}  // namespace

Progress::Progress(std::string label)
    : Progress(std::move(label), stderr, isatty(STDERR_FILENO) == 1, Clock::System()) {}

Progress::Progress(std::string label, std::FILE* out, bool enabled, const Clock& clock)
    : label_(std::move(label)), out_(out), enabled_(enabled), clock_(clock), started_(clock.Now()) {}

Progress::~Progress() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  std::lock_guard<std::mutex> lock(mu_);
  // The command's own summary takes the line's place.
  if (drawn_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
  }
}

void Progress::Update(int64_t done, int64_t total, std::string_view unit) {
  std::lock_guard<std::mutex> lock(mu_);
  done_ = done;
  total_ = total;
  unit_ = unit;
  const bool finished = total > 0 && done >= total;
  if (finished || !drawn_ || clock_.Now() - drawn_at_ >= kRedrawMs) DrawLocked();
}

void Progress::Tick() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!drawn_ || clock_.Now() - drawn_at_ >= kRedrawMs) DrawLocked();
}

void Progress::StartTicker() {
  if (!enabled_ || ticker_.joinable()) return;
  ticker_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      DrawLocked();
      wake_.wait_for(lock, kTickerPeriod);
    }
  });
}

std::string Progress::Line() const {
  std::lock_guard<std::mutex> lock(mu_);
  return LineLocked();
}

std::string Progress::LineLocked() const {
  const int64_t elapsed_ms = std::max<int64_t>(0, clock_.Now() - started_);
  if (unit_.empty()) return fmt::format("{} · {}", label_, Duration(elapsed_ms / 1000));
  const bool bytes = unit_ == "bytes";
  auto amount = [&](int64_t n) { return bytes ? Bytes(static_cast<double>(n)) : Grouped(n); };
  const double rate = elapsed_ms > 0 ? static_cast<double>(done_) * 1000.0 / static_cast<double>(elapsed_ms) : 0;
  std::string rate_text = bytes ? Bytes(rate) + "/s" : fmt::format("{}/s", Grouped(static_cast<int64_t>(rate + 0.5)));
  if (total_ <= 0) {
    return fmt::format("{} {}{} · {} · {}", label_, amount(done_), bytes ? "" : " " + unit_, rate_text,
                       Duration(elapsed_ms / 1000));
  }
  const int64_t done = std::min(done_, total_);
  const int filled = static_cast<int>(done * kBarWidth / total_);
  std::string bar =
      std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(kBarWidth - filled), '.');
  std::string counts = bytes ? fmt::format("{}/{}", amount(done), amount(total_))
                             : fmt::format("{}/{} {}", amount(done), amount(total_), unit_);
  std::string eta = rate > 0 ? Duration(static_cast<int64_t>(static_cast<double>(total_ - done) / rate + 0.5)) : "?";
  return fmt::format("{} [{}] {} · {} · ETA {}", label_, bar, counts, rate_text, eta);
}

void Progress::DrawLocked() {
  if (!enabled_) return;
  std::fputs(("\r" + LineLocked() + "\033[K").c_str(), out_);
  std::fflush(out_);
  drawn_ = true;
  drawn_at_ = clock_.Now();
}

}  // namespace cilia::app
