#include "core/clock.h"

#include <chrono>

namespace cilia {
namespace {

class SystemClock final : public Clock {
 public:
  UnixMs Now() const override {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }
};

}  // namespace

Clock::~Clock() = default;

const Clock& Clock::System() {
  static const SystemClock clock;
  return clock;
}

}  // namespace cilia
