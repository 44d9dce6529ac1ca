// A disk that fails on purpose, through the seam of core/env.h: installed
// for the process while it lives, with the disk fault observer. Each rule fails (or slows) one kind of
// operation on paths containing a part, a number of times or for good.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/env.h"

namespace cilia::testing {

class FaultEnv : public Env {
 public:
  static constexpr int kForever = -1;

  FaultEnv() {
    Env::SetCurrentForTesting(this);
    SetDiskFaultObserver([this](Code code) {
      std::lock_guard lock(mu_);
      reported_.push_back(code);
    });
  }
  ~FaultEnv() override {
    SetDiskFaultObserver(nullptr);
    Env::SetCurrentForTesting(nullptr);
  }
  FaultEnv(const FaultEnv&) = delete;
  FaultEnv& operator=(const FaultEnv&) = delete;

  // `op` on a path containing `path_part` fails with `status`, `times` times.
  void Fail(DiskOp op, std::string path_part, Status status, int times = kForever) {
    std::lock_guard lock(mu_);
    rules_.push_back({op, std::move(path_part), std::move(status), times, {}});
  }
  // `op` on a path containing `path_part` takes `delay` longer, and succeeds.
  void Slow(DiskOp op, std::string path_part, std::chrono::milliseconds delay) {
    std::lock_guard lock(mu_);
    rules_.push_back({op, std::move(path_part), Status::Ok(), kForever, delay});
  }
  // The disk is well again.
  void Heal() {
    std::lock_guard lock(mu_);
    rules_.clear();
  }
  // The disk faults reported to the observer (what /metrics counts).
  std::vector<Code> reported() {
    std::lock_guard lock(mu_);
    return reported_;
  }
  // How many operations a rule failed so far.
  int failures() {
    std::lock_guard lock(mu_);
    return failures_;
  }

  Status BeforeDiskOp(DiskOp op, std::string_view path) override {
    std::chrono::milliseconds delay{0};
    Status verdict;
    {
      std::lock_guard lock(mu_);
      for (Rule& rule : rules_) {
        if (rule.op != op || path.find(rule.path_part) == std::string_view::npos || rule.times == 0) continue;
        if (rule.delay.count() > 0) {
          delay += rule.delay;
          continue;
        }
        if (rule.times > 0) --rule.times;
        ++failures_;
        verdict = rule.status;
        break;
      }
    }
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    return verdict;
  }

 private:
  struct Rule {
    DiskOp op;
    std::string path_part;
    Status status;
    int times;
    std::chrono::milliseconds delay;
  };
  std::mutex mu_;
  std::vector<Rule> rules_;
  int failures_ = 0;
  std::vector<Code> reported_;
};

}  // namespace cilia::testing
