// Work that runs beside the caller's own, on another thread.
#pragma once

#include <future>
#include <memory>
#include <system_error>
#include <type_traits>
#include <utility>

namespace cilia {

// Starts `work` on a thread of its own and returns its future; where no
// thread can be had, `work` runs when the future is asked for instead, so a
// starved process is slower, never wrong. The future's destructor waits for
// the work (std::async's futures do), so `work` may hold references to the
// caller's locals declared before the future.
template <typename Work>
std::future<std::invoke_result_t<std::decay_t<Work>&>> RunBeside(Work&& work) {
  // Shared, so that a launch that fails has not consumed it.
  auto shared = std::make_shared<std::decay_t<Work>>(std::forward<Work>(work));
  auto run = [shared] { return (*shared)(); };
  try {
    return std::async(std::launch::async, run);
  } catch (const std::system_error&) {
    return std::async(std::launch::deferred, run);
  }
}

}  // namespace cilia
