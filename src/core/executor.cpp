#include "core/executor.h"

#include <algorithm>

namespace cilia {

Executor::Executor(size_t threads, size_t max_queued) : max_queued_(max_queued) {
  threads = std::max<size_t>(threads, 1);
  free_ = threads;
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

Executor::~Executor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

bool Executor::Post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queue_.size() >= max_queued_ + free_) return false;
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

size_t Executor::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void Executor::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      // Stopping still drains the queue: a Joined may be waiting on it.
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
      --free_;
    }
    busy_.fetch_add(1, std::memory_order_relaxed);
    task();
    busy_.fetch_sub(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(mu_);
    ++free_;
  }
}

}  // namespace cilia
