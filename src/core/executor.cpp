#include "core/executor.h"

#include <algorithm>

namespace cilia {

Executor::Executor(size_t threads, size_t max_queued) : threads_(std::max<size_t>(threads, 1)), max_queued_(max_queued) {}

Executor::~Executor() {
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;  // no worker starts after this
    workers.swap(workers_);
  }
  wake_.notify_all();
  for (std::thread& worker : workers) worker.join();
}

bool Executor::Post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t free = idle_ + (threads_ - workers_.size());
    if (stopping_ || queue_.size() >= max_queued_ + free) return false;
    queue_.push_back(std::move(task));
    // More waiting than idle workers to take it: start one, while there is room.
    if (queue_.size() > idle_ && workers_.size() < threads_) {
      ++idle_;
      workers_.emplace_back([this] { WorkerLoop(); });
    }
  }
  wake_.notify_one();
  return true;
}

size_t Executor::started() const {
  std::lock_guard<std::mutex> lock(mu_);
  return workers_.size();
}

size_t Executor::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return workers_.size() - idle_;
}

size_t Executor::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void Executor::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    // Stopping still drains the queue: a Joined may be waiting on it.
    if (queue_.empty()) return;
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    --idle_;
    lock.unlock();
    task();
    task = nullptr;  // what it captured goes before the worker counts as idle
    lock.lock();
    ++idle_;
  }
}

}  // namespace cilia
