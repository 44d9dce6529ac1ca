// Progress of long CLI work (ingest, import, export, jobs): one line on
// stderr, redrawn in place, only when stderr is a terminal — never on stdout,
// so that `--json` and `cilia export > dump.jsonl` stay clean, and nothing at
// all in a pipe or a log.
//
//   ingest [########............]  1,204/3,000 messages · 412/s · ETA 0:04
//   export  18.2 MB · 6.1 MB/s · 0:03
//   jobs run nightly · 0:12
//
// With a total the line has a bar, the rate and an ETA; without one, the
// count and the rate; with no count at all (work that reports nothing, such
// as a request to the server), the time it has taken so far.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "core/clock.h"
#include "core/thread_annotations.h"

namespace cilia::app {

class Progress {
 public:
  // Draws on stderr when it is a terminal; otherwise stays silent.
  explicit Progress(std::string label);
  // For tests: draws on `out` when `enabled`, timed by `clock`.
  Progress(std::string label, std::FILE* out, bool enabled, const Clock& clock);
  ~Progress();  // clears the line and stops the ticker
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` of `total` (0: not known) `unit`s; "bytes" are shown as KB/MB/GB.
  // Redraws at most every 100 ms, and always when done reaches total.
  void Update(int64_t done, int64_t total, std::string_view unit);
  // Redraws the time taken (at most every 100 ms); for work that reports no counts.
  void Tick();
  // Keeps the line moving by itself (Tick every 250 ms) until destroyed,
  // for one blocking call that reports nothing. Does nothing when silent.
  void StartTicker();

  bool enabled() const { return enabled_; }

  // The line as it would be drawn now, without "\r" and erasing; for tests.
  std::string Line() const;

 private:
  std::string LineLocked() const CILIA_REQUIRES(mu_);
  void DrawLocked() CILIA_REQUIRES(mu_);

  const std::string label_;
  std::FILE* const out_;
  const bool enabled_;
  const Clock& clock_;
  const UnixMs started_;
  mutable std::mutex mu_;
  int64_t done_ CILIA_GUARDED_BY(mu_) = 0;
  int64_t total_ CILIA_GUARDED_BY(mu_) = 0;
  std::string unit_ CILIA_GUARDED_BY(mu_);
  UnixMs drawn_at_ CILIA_GUARDED_BY(mu_) = 0;
  bool drawn_ CILIA_GUARDED_BY(mu_) = false;
  bool stopping_ CILIA_GUARDED_BY(mu_) = false;
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace cilia::app
