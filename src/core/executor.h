// The one place background work runs: a bounded set of worker threads owned
// by `serve` (or by whoever makes one), with a bounded queue. Workers start
// when work first needs them and then stay: a server sized for 256 streams
// runs as many threads as it has had work at once, not 256 from the start.
//
// Two ways in:
//  - `Post` queues fire-and-forget work (a summary, a stream's producer) and
//    says when it could not, so the caller can refuse with a clear error
//    instead of growing threads or a queue without bound;
//  - `Beside` runs work next to the caller's own and hands back a `Joined`
//    whose destructor waits for it, so the work may borrow the caller's
//    locals. Work that no worker has started yet is run by the caller itself
//    when it asks, so a saturated pool is slower, never stuck.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/thread_annotations.h"

namespace cilia {

class Executor {
 public:
  // At most `threads` workers (at least one); at most `max_queued` tasks wait
  // beyond those that free workers (idle or not yet started) are about to take.
  Executor(size_t threads, size_t max_queued);
  // Runs what is queued, then joins the workers.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Queues `task`; false when the queue is full or the executor is stopping.
  bool Post(std::function<void()> task);

  template <typename Work>
  class Joined;
  template <typename Work>
  Joined<std::decay_t<Work>> Beside(Work&& work);
  // Like Beside, but empty when no worker can take the work, for work that
  // must run in the background or not at all (the indexer's loop).
  template <typename Work>
  std::optional<Joined<std::decay_t<Work>>> TryBeside(Work&& work);

  // The most workers it may run.
  size_t threads() const { return threads_; }
  // Workers started so far, workers running a task, tasks waiting for one.
  size_t started() const;
  size_t busy() const;
  size_t queued() const;

 private:
  void WorkerLoop();

  const size_t threads_;
  const size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_ CILIA_GUARDED_BY(mu_);
  bool stopping_ CILIA_GUARDED_BY(mu_) = false;
  size_t idle_ CILIA_GUARDED_BY(mu_) = 0;  // started workers not running a task
  std::vector<std::thread> workers_ CILIA_GUARDED_BY(mu_);
};

// The result of work run beside the caller. `get()` returns it once; the
// destructor waits for the work when nobody asked.
template <typename Work>
class Executor::Joined {
 public:
  using Value = std::invoke_result_t<Work&>;

  Joined(Joined&&) noexcept = default;
  Joined& operator=(Joined&&) = delete;
  ~Joined() {
    if (state_) Wait();
  }

  Value get() {
    Wait();
    auto state = std::move(state_);
    if constexpr (std::is_void_v<Value>) {
      return;
    } else {
      return std::move(*state->value);
    }
  }

 private:
  friend class Executor;
  enum Phase : int { kQueued, kRunning, kDone };
  struct State {
    explicit State(Work w) : work(std::move(w)) {}
    Work work;
    std::atomic<int> phase{kQueued};
    std::mutex mu;
    std::condition_variable done;
    std::conditional_t<std::is_void_v<Value>, bool, std::optional<Value>> value{};

    // Whoever moves the phase from queued to running runs the work.
    void RunIfUnclaimed() {
      int expected = kQueued;
      if (!phase.compare_exchange_strong(expected, kRunning)) return;
      if constexpr (std::is_void_v<Value>) {
        work();
      } else {
        value.emplace(work());
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        phase.store(kDone);
      }
      done.notify_all();
    }
  };

  explicit Joined(std::shared_ptr<State> state) : state_(std::move(state)) {}

  void Wait() {
    state_->RunIfUnclaimed();
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->done.wait(lock, [&] { return state_->phase.load() == kDone; });
  }

  std::shared_ptr<State> state_;
};

template <typename Work>
Executor::Joined<std::decay_t<Work>> Executor::Beside(Work&& work) {
  using J = Joined<std::decay_t<Work>>;
  auto state = std::make_shared<typename J::State>(std::forward<Work>(work));
  // When the queue is full the caller runs the work itself on `get()`.
  Post([state] { state->RunIfUnclaimed(); });
  return J(std::move(state));
}

template <typename Work>
std::optional<Executor::Joined<std::decay_t<Work>>> Executor::TryBeside(Work&& work) {
  using J = Joined<std::decay_t<Work>>;
  auto state = std::make_shared<typename J::State>(std::forward<Work>(work));
  if (!Post([state] { state->RunIfUnclaimed(); })) return std::nullopt;
  return J(std::move(state));
}

}  // namespace cilia
