#pragma once
// Private to poreplab_cpu: the one way a labeling thread waits for another (a coordinator for
// its hashers, a hasher for its slot, the disk labeler's reader for its writer): spin on
// pause, then yield a little, then sleep ever longer, up to 100 us. Threads on cores of their
// own wait a few hundred cycles and never leave the spin; threads sharing CPUs with other
// work, or waiting on a disk, must not starve it.
#include <sched.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

namespace poreplab::cpu::detail {

// Spins before the first yield: a ring between cores (a slot is a few hundred ns of work),
// and a pipeline waiting on reads from a disk (tens of us).
inline constexpr std::uint32_t kCoreSpins = 4096, kDiskSpins = 256;

class back_off {
 public:
  explicit back_off(std::uint32_t spins) : spin_limit_(spins) {}
  void operator()() {
    if (n_ < spin_limit_)
      _mm_pause();
    else if (n_ < spin_limit_ + 16)
      sched_yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(std::min<std::uint32_t>(100, 5 * (n_ - spin_limit_ - 15))));
    ++n_;
  }

 private:
  std::uint32_t spin_limit_, n_ = 0;
};

template <class Ready>
void wait_until(Ready ready, std::uint32_t spins = kCoreSpins) {
  for (back_off wait(spins); !ready();) wait();
}

}  // namespace poreplab::cpu::detail
